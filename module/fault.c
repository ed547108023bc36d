// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pcpcache: memory whose page faults pcpcache serves, so that a real
 * fault-driven workload (will-it-scale's page_fault1, "pcpctl fault") runs
 * through the per-CPU magazines.
 *
 * Each mmap() of the device is a region of zero-filled memory of its own. A
 * fault takes a page with pcpcache_alloc_page() on the faulting CPU and maps
 * it; the pages go back with pcpcache_free_page() when the region is
 * unmapped, on the CPU that unmaps it.
 *
 * The region, not the page refcount, decides when a page is freed. The
 * mapping is VM_PFNMAP, so its PTEs are special: the core mm takes no
 * reference on the pages, never frees them when it zaps the PTEs, and
 * get_user_pages() refuses the mapping (GUP-fast skips special PTEs), so
 * nobody can hold a page beyond the mapping. A page stays in its region's
 * table from its first fault until the region's last VMA is closed, which
 * the core mm does after the page tables are torn down and the TLBs
 * flushed; only then is it freed.
 *
 * The rules that keep it so, and what userspace sees of them, are in
 * Documentation/userspace-api/pcpcache.rst: MAP_SHARED only (a private
 * writable VM_PFNMAP mapping is copy-on-write, which vmf_insert_pfn()
 * refuses), not inherited across fork (VM_DONTCOPY, and VM_IO so that
 * MADV_DOFORK cannot undo it), never split, never grown.
 *
 * A misc device rather than a debugfs file: debugfs's full proxy passes no
 * mmap, and under lockdown debugfs refuses to open a file that has one.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/pcpcache.h>

#include "compat.h"
#include "pcpcache.h"

/*
 * The pages reach userspace: cleared. Like anonymous memory, a fault may
 * reclaim, and a failure is retried (VM_FAULT_OOM).
 */
#define PCPCACHE_FAULT_GFP	(GFP_USER | __GFP_ZERO)

#define PCPCACHE_REGION_FLAGS	(VM_PFNMAP | VM_IO | VM_DONTCOPY | \
				 VM_DONTEXPAND | VM_DONTDUMP)

/*
 * One mmap() of the device: the pages its faults took, by page offset.
 * Its VMAs share it: one, and a second while mremap() moves the mapping.
 * A slot is written once, by the fault that fills it, and read by faults
 * on the same page and by the last close, which no fault can race: the
 * VMA is unlinked from the mm before it is closed.
 */
struct pcpcache_region {
	refcount_t vmas;
	struct mm_struct *mm;		/* charged; the VMAs' own */
	unsigned long nr_pages;
	struct page *pages[];
};

/*
 * Reserve room for @nr_pages against the limits of the user file, charged
 * to @mm as the user file charges its opener (user.c): the whole region
 * at once, as it may all be faulted in.
 */
static struct pcpcache_region *region_create(struct mm_struct *mm,
					     unsigned long nr_pages)
{
	struct pcpcache_region *region;

	if (nr_pages > pcpcache_user_max_pages() ||
	    pcpcache_user_charge(mm, nr_pages))
		return ERR_PTR(-ENOMEM);
	region = kvzalloc(struct_size(region, pages, nr_pages), GFP_KERNEL);
	if (!region) {
		pcpcache_user_uncharge(mm, nr_pages);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&region->vmas, 1);
	region->mm = mm;
	region->nr_pages = nr_pages;
	return region;
}

/* Nothing maps the region any more: give its pages back, on this CPU. */
static void region_destroy(struct pcpcache_region *region)
{
	unsigned long i;

	for (i = 0; i < region->nr_pages; i++) {
		if (region->pages[i])
			pcpcache_free_page(region->pages[i], false);
		cond_resched();
	}
	/* the mm outlives its VMAs, which are closed before it is freed */
	pcpcache_user_uncharge(region->mm, region->nr_pages);
	kvfree(region);
}

/* A copy of a VMA: mremap() moving the region. */
static void region_vm_open(struct vm_area_struct *vma)
{
	struct pcpcache_region *region = vma->vm_private_data;

	refcount_inc(&region->vmas);
}

static void region_vm_close(struct vm_area_struct *vma)
{
	struct pcpcache_region *region = vma->vm_private_data;

	if (refcount_dec_and_test(&region->vmas))
		region_destroy(region);
}

/*
 * Every VMA of a region covers all of it, so that a page is never freed
 * while another part of the region still maps it: partial munmap(),
 * mprotect() and mremap() fail with EINVAL.
 */
static int region_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

/*
 * The page of @vmf's slot: the one there, or a new one from this CPU. A
 * slot is filled with cmpxchg(), which orders the clearing of the page
 * before it; a racing fault reads it with acquire, so maps it cleared.
 */
static struct page *region_page(struct pcpcache_region *region,
				struct vm_fault *vmf)
{
	struct page **slot = &region->pages[vmf->pgoff];
	struct page *page;

	/* pairs with the cmpxchg() of a fault of another thread */
	page = smp_load_acquire(slot);
	if (page)
		return page;

	page = pcpcache_alloc_page(PCPCACHE_FAULT_GFP, false);
	if (page && cmpxchg(slot, NULL, page)) {
		pcpcache_free_page(page, false);
		/* that fault won the race meanwhile; pairs as above */
		page = smp_load_acquire(slot);
	}
	return page;
}

/* Called with the mmap lock (or the VMA lock) held for reading. */
static vm_fault_t region_vm_fault(struct vm_fault *vmf)
{
	struct pcpcache_region *region = vmf->vma->vm_private_data;
	struct page *page;

	/* cannot happen: vm_pgoff is 0 and the VMA never grows */
	if (vmf->pgoff >= region->nr_pages)
		return VM_FAULT_SIGBUS;
	page = region_page(region, vmf);
	if (!page)
		return VM_FAULT_OOM;
	/* the page stays in its slot whatever happens to the insertion */
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(page));
}

static const struct vm_operations_struct region_vm_ops = {
	.open		= region_vm_open,
	.close		= region_vm_close,
	.may_split	= region_vm_may_split,
	.fault		= region_vm_fault,
};

/*
 * Nothing is mapped here: pages come at fault time only, so a close that
 * follows at once, when mmap_region() fails after us, has nothing to free.
 */
static int pcpcache_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pcpcache_region *region;

	if (!(vma->vm_flags & VM_MAYSHARE) || vma->vm_pgoff)
		return -EINVAL;
	region = region_create(vma->vm_mm, vma_pages(vma));
	if (IS_ERR(region))
		return PTR_ERR(region);
	pcpcache_vm_flags_set(vma, PCPCACHE_REGION_FLAGS);
	vma->vm_private_data = region;
	vma->vm_ops = &region_vm_ops;
	return 0;
}

/*
 * A mapping pins memory the kernel cannot reclaim: a privilege, checked
 * here, as the file mode alone (a udev rule, a chmod) is not a policy.
 */
static int pcpcache_dev_open(struct inode *inode, struct file *file)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

static const struct file_operations pcpcache_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= pcpcache_dev_open,
	.mmap		= pcpcache_dev_mmap,
	.llseek		= noop_llseek,
};

static struct miscdevice pcpcache_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= KBUILD_MODNAME,
	.fops		= &pcpcache_dev_fops,
	.mode		= 0600,
};

int pcpcache_fault_init(void)
{
	return misc_register(&pcpcache_dev);
}

/*
 * Open files and mappings of the device hold a reference on the module:
 * none is left by now.
 */
void pcpcache_fault_exit(void)
{
	misc_deregister(&pcpcache_dev);
}
