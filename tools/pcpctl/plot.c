// SPDX-License-Identifier: GPL-2.0
/*
 * pcpctl's plots, by gnuplot: bench's and simulate's. No shell ever sees
 * a path, whatever characters it holds, and no path reaches gnuplot as a
 * command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcpctl.h"
#include "plot.h"

/*
 * @s as a gnuplot string: single-quoted, where nothing is special but the
 * quote, which is doubled. gnuplot strings cannot hold a line break:
 * plot() refuses paths with one.
 */
void gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* gnuplot on @script, without a shell; its exit status, or -1. */
int run_gnuplot(const char *script)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * "./" before a relative path: gnuplot reads a file name that begins with
 * '<' as a command to run, and writes to one that begins with '|'.
 */
const char *gp_prefix(const char *path)
{
	return path[0] == '/' ? "" : "./";
}

/*
 * Create @path for gnuplot to write into: never through a symlink, never
 * over a file that is there. 0, or -1 with the reason printed.
 */
int create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s%s\n", who, path, strerror(errno),
			errno == EEXIST ? " (not overwritten)" : "");
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * A scatter plot of @csv (simulate's: setting, design, trips, peak,
 * mean, pareto) into @png: a colour per design, the front marked.
 */
int gnuplot_scatter(const char *png, const char *title, const char *xlabel,
		  const char *ylabel, const char *csv)
{
	char script[] = "/tmp/pcpctl-plot-XXXXXX";
	int fd = mkstemp(script), err;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f) {
		fprintf(stderr, "%s: cannot write a gnuplot script\n", who);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	fputs("set terminal png size 1000,650\n"
	      "set datafile separator ','\n"
	      "set key autotitle columnhead\n"
	      "set grid\nset key outside right\nset logscale x\n"
	      "set output ", f);
	gp_string(f, png);
	fputs("\nset title ", f);
	gp_string(f, title);
	fputs("\nset xlabel ", f);
	gp_string(f, xlabel);
	fputs("\nset ylabel ", f);
	gp_string(f, ylabel);
	fputs("\nplot for [d in 'passthrough single split auto kernel'] ", f);
	gp_string(f, csv);
	fputs(" using ($4 + 1):(strcol(2) eq d ? $3 : NaN) with points pt 7 title d, \\\n  ", f);
	gp_string(f, csv);
	fputs(" using ($4 + 1):($6 == 1 ? $3 : NaN) with points pt 6 ps 2.5 title 'Pareto front'\n", f);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: cannot write a gnuplot script: %s\n", who,
			strerror(errno));
		unlink(script);
		return 1;
	}
	err = run_gnuplot(script);
	unlink(script);
	if (err)
		fprintf(stderr, "%s: gnuplot failed%s\n", who,
			err == 127 ? ": it is not installed ('make deps')" : "");
	return err ? 1 : 0;
}
