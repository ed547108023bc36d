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
 * The series' looks, by position: each its own point type and colour.
 * Large open shapes alternate with small filled ones, so that a series
 * drawn over another with the same points (split over single, whose
 * settings often agree) leaves the one beneath it in sight.
 */
static const struct {
	unsigned int pt;	/* gnuplot's point type */
	const char *ps;		/* its size */
	const char *lc;		/* its colour */
} gp_styles[GP_NR_STYLES] = {
	{ 5, "1.3", "#000000" },	/* filled square, black */
	{ 4, "2.4", "#0060ad" },	/* open square, blue */
	{ 7, "0.9", "#e07000" },	/* filled circle, orange */
	{ 8, "2.4", "#009e40" },	/* open triangle, green */
	{ 13, "1.2", "#8030c0" },	/* filled diamond, purple */
	{ 2, "1.8", "#d01010" },	/* cross, red */
	{ 3, "2.6", "#a05000" },	/* star, brown */
	{ 10, "2.2", "#00a0a0" },	/* open triangle down, cyan */
	{ 12, "2.2", "#a0a000" },	/* open diamond, olive */
	{ 1, "2.2", "#ff40ff" },	/* plus, pink */
};

/*
 * A scatter plot of @csv (simulate's: setting, design, trips, peak,
 * mean, pareto) into @png: peak plus one on x, trips on y, both on log
 * scales; one series for each of the @nr designs in @series, the rows
 * whose design column holds its name, each its own point type and
 * colour; the front marked. Trips under 0.001 (the CSV's precision, 0
 * included) are drawn at 0.001, which a log scale can show.
 */
int gnuplot_scatter(const char *png, const char *title, const char *xlabel,
		    const char *ylabel, const char *csv,
		    const char *const *series, unsigned int nr)
{
	char script[] = "/tmp/pcpctl-plot-XXXXXX";
	int fd = mkstemp(script), err;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	unsigned int i;

	if (!f) {
		fprintf(stderr, "%s: cannot write a gnuplot script\n", who);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	fputs("set terminal png size 1200,750\n"
	      "set datafile separator ','\n"
	      "set key autotitle columnhead\n"
	      "set grid\nset key outside right\n"
	      "set logscale x\nset logscale y\n"
	      "y(t) = t < 0.001 ? 0.001 : t\n"
	      "set output ", f);
	gp_string(f, png);
	fputs("\nset title ", f);
	gp_string(f, title);
	fputs("\nset xlabel ", f);
	gp_string(f, xlabel);
	fputs("\nset ylabel ", f);
	gp_string(f, ylabel);
	fputs("\nplot \\\n", f);
	for (i = 0; i < nr; i++) {
		unsigned int k = i % GP_NR_STYLES;

		fputs("  ", f);
		gp_string(f, csv);
		fputs(" using ($4 + 1):(strcol(2) eq ", f);
		gp_string(f, series[i]);
		fprintf(f, " ? y($3) : NaN) with points pt %u ps %s lc rgb '%s' title ",
			gp_styles[k].pt, gp_styles[k].ps, gp_styles[k].lc);
		gp_string(f, series[i]);
		fputs(", \\\n", f);
	}
	fputs("  ", f);
	gp_string(f, csv);
	fputs(" using ($4 + 1):($6 == 1 ? y($3) : NaN)", f);
	fputs(" with points pt 6 ps 3.4 lc rgb '#808080' title 'Pareto front'\n", f);
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
