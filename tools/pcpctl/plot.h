/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpctl's plots (plot.c).
 */
#ifndef _PCPCTL_PLOT_H
#define _PCPCTL_PLOT_H

#include <stdio.h>

void gp_string(FILE *f, const char *s);
int run_gnuplot(const char *script);
const char *gp_prefix(const char *path);
int create_new(const char *path);
/* gnuplot_scatter()'s series: this many look each unlike the others */
#define GP_NR_STYLES	10
int gnuplot_scatter(const char *png, const char *title, const char *xlabel,
		    const char *ylabel, const char *csv,
		    const char *const *series, unsigned int nr);

#endif /* _PCPCTL_PLOT_H */
