// SPDX-License-Identifier: GPL-2.0
/*
 * pcpcache's control and status files in sysfs, /sys/kernel/mm/pcpcache/,
 * in the style of /sys/kernel/mm/transparent_hugepage/: every file of
 * control.c but the testing tools that stay in debugfs (bench,
 * fault_refill), and without the user file's ioctls.
 *
 * Kernel lockdown, which Secure Boot turns on, refuses to open a debugfs
 * file that can be written or has an ioctl: there the controls in debugfs
 * are gone and these remain. Reads and writes go to control.c, so the two
 * interfaces share their grammar and their rules. Where they differ is
 * sysfs's: kernfs hands a store no file offset, so every write() is one
 * whole value wherever the offset is, and a store sees a page at most.
 *
 * Anyone may read and only root may write, as in transparent_hugepage.
 * pagesets, a line per possible CPU, may outgrow the page a sysfs
 * attribute shows: it is a binary attribute that holds text, as the CPU
 * topology lists became in 5.16.
 */
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "pcpcache.h"

/* One file: its attribute, plain or binary, and what it stands for. */
struct pcpcache_attr {
	struct kobj_attribute attr;
	struct bin_attribute bin;
	const struct pcpcache_ctl *ctl;
};

static struct kobject *pcpcache_kobj;
static struct pcpcache_attr *pcpcache_attrs;
static struct attribute **pcpcache_attr_list;
static pcpcache_bin_attr_const struct bin_attribute **pcpcache_bin_list;
static struct attribute_group pcpcache_group;

static const struct pcpcache_ctl *attr_ctl(struct kobj_attribute *attr)
{
	return container_of(attr, struct pcpcache_attr, attr)->ctl;
}

static ssize_t ctl_attr_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	const struct pcpcache_ctl *ctl = attr_ctl(attr);

	return ctl->show(ctl, buf, PAGE_SIZE);
}

static ssize_t ctl_attr_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	const struct pcpcache_ctl *ctl = attr_ctl(attr);
	int err;

	err = ctl->store(ctl, buf, count);
	return err ? err : count;
}

/* The whole text is made for each read, and the piece asked for copied. */
static ssize_t ctl_bin_read(struct file *file, struct kobject *kobj,
			    pcpcache_bin_attr_const struct bin_attribute *bin,
			    char *buf, loff_t off,
			    size_t count)
{
	const struct pcpcache_ctl *ctl = bin->private;
	size_t size = ctl->size();
	ssize_t ret;
	char *text;

	text = kvmalloc(size, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	ret = memory_read_from_buffer(buf, count, &off, text,
				      ctl->show(ctl, text, size));
	kvfree(text);
	return ret;
}

static umode_t ctl_mode(const struct pcpcache_ctl *ctl)
{
	return (ctl->show ? 0444 : 0) | (ctl->store ? 0200 : 0);
}

/* Fill in the attribute of @ctl, in one of the two lists. */
static void add_attr(struct pcpcache_attr *a, const struct pcpcache_ctl *ctl,
		     unsigned int *nr, unsigned int *nr_bin)
{
	a->ctl = ctl;
	if (ctl->size) {
		/* only text too long for a page: nothing to write to */
		sysfs_bin_attr_init(&a->bin);
		a->bin.attr.name = ctl->name;
		a->bin.attr.mode = 0444;
		a->bin.read = ctl_bin_read;
		a->bin.private = (void *)ctl;
		pcpcache_bin_list[(*nr_bin)++] = &a->bin;
		return;
	}
	sysfs_attr_init(&a->attr.attr);
	a->attr.attr.name = ctl->name;
	a->attr.attr.mode = ctl_mode(ctl);
	if (ctl->show)
		a->attr.show = ctl_attr_show;
	if (ctl->store)
		a->attr.store = ctl_attr_store;
	pcpcache_attr_list[(*nr)++] = &a->attr.attr;
}

static void free_attrs(void)
{
	kfree(pcpcache_bin_list);
	kfree(pcpcache_attr_list);
	kfree(pcpcache_attrs);
}

/**
 * pcpcache_sysfs_init - create /sys/kernel/mm/pcpcache/ and its files
 *
 * Return: 0, or -ENOMEM, -ENOENT (no /sys/kernel/mm) or the error of
 * sysfs; then nothing is created.
 */
int pcpcache_sysfs_init(void)
{
	unsigned int i, nr = 0, nr_bin = 0;
	struct kobject *mm;
	int err;

	/* each list ends in a NULL */
	pcpcache_attrs = kcalloc(pcpcache_nr_ctls, sizeof(*pcpcache_attrs),
				 GFP_KERNEL);
	pcpcache_attr_list = kcalloc(pcpcache_nr_ctls + 1,
				     sizeof(*pcpcache_attr_list), GFP_KERNEL);
	pcpcache_bin_list = kcalloc(pcpcache_nr_ctls + 1,
				    sizeof(*pcpcache_bin_list), GFP_KERNEL);
	if (!pcpcache_attrs || !pcpcache_attr_list || !pcpcache_bin_list) {
		err = -ENOMEM;
		goto free;
	}
	for (i = 0; i < pcpcache_nr_ctls; i++)
		if (!pcpcache_ctls[i].debugfs_only)
			add_attr(&pcpcache_attrs[i], &pcpcache_ctls[i], &nr,
				 &nr_bin);
	pcpcache_group.attrs = pcpcache_attr_list;
	pcpcache_group.bin_attrs = pcpcache_bin_list;

	mm = pcpcache_mm_kobj_get();
	pcpcache_kobj = mm ? kobject_create_and_add(KBUILD_MODNAME, mm) : NULL;
	/* the new directory holds its parent from now on */
	kobject_put(mm);
	if (!pcpcache_kobj) {
		err = mm ? -ENOMEM : -ENOENT;
		goto free;
	}
	err = sysfs_create_group(pcpcache_kobj, &pcpcache_group);
	if (err)
		goto put;
	return 0;

put:
	kobject_put(pcpcache_kobj);
free:
	free_attrs();
	return err;
}

/*
 * The files go first, and at once: kernfs waits for the reads and writes
 * under way, and none starts after, so the attributes can be freed.
 */
void pcpcache_sysfs_exit(void)
{
	sysfs_remove_group(pcpcache_kobj, &pcpcache_group);
	kobject_put(pcpcache_kobj);
	free_attrs();
}
