/*
 * dataset_decode.c — how the generated JPEGs decode, next to real photos,
 * on one core: libjpeg-turbo (turbojpeg) decode to RGB only, files held in
 * memory, whole passes until the CPU-time budget is spent. Prints images/s,
 * megapixels/s and microseconds per megapixel for the generated set and for
 * each reference file given, and the ratio of their per-megapixel costs,
 * so synthetic content can be compared with photographs on the same CPU.
 *
 *   dataset_decode DIR [--seconds S] [--count N] [REFERENCE.jpg ...]
 *
 * Published decode-only figures for ImageNet val (ternaus/imread_benchmark,
 * one thread, RGB uint8): 456-864 images/s per core depending on CPU and
 * library; see pipeline/DATASETS.md.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>

#include "core/opt.h"

struct img {
	unsigned char *b;
	unsigned long n;
	int w, h;
};

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int load(const char *path, struct img *im, tjhandle tj)
{
	FILE *f = fopen(path, "rb");
	int sub, cs;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	im->b = malloc((size_t)n);
	im->n = (unsigned long)n;
	int ok = im->b && fread(im->b, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	if (!ok || tjDecompressHeader3(tj, im->b, im->n, &im->w, &im->h, &sub, &cs)) {
		free(im->b);
		return -1;
	}
	return 0;
}

static size_t nimg, cap;
static struct img *imgs;

static void walk(const char *dir, tjhandle tj, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t nn = 0;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (nn + 1) * sizeof(*names));
		names[nn++] = strdup(e->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < nn; i++) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		size_t l = strlen(names[i]);
		if (l > 5 && !strcasecmp(names[i] + l - 5, ".JPEG")) {
			if (nimg < max) {
				if (nimg == cap) {
					cap = cap ? cap * 2 : 256;
					imgs = realloc(imgs, cap * sizeof(*imgs));
				}
				if (!load(p, &imgs[nimg], tj))
					nimg++;
			}
		} else {
			walk(p, tj, max);
		}
		free(names[i]);
	}
	free(names);
}

/* Decodes @n images in passes for @secs of CPU; returns images/s, fills MP/s. */
static double bench(tjhandle tj, struct img *v, size_t n, double secs, double *mps, double *bps)
{
	size_t maxpx = 0;
	for (size_t i = 0; i < n; i++)
		if ((size_t)v[i].w * v[i].h > maxpx)
			maxpx = (size_t)v[i].w * v[i].h;
	unsigned char *rgb = malloc(maxpx * 3);
	double t0 = cpu_s(), px = 0, bytes = 0;
	size_t done = 0;
	do {
		for (size_t i = 0; i < n; i++) {
			if (tjDecompress2(tj, v[i].b, v[i].n, rgb, v[i].w, 0, v[i].h, TJPF_RGB, 0))
				fprintf(stderr, "decode error: %s\n", tjGetErrorStr2(tj));
			px += (double)v[i].w * v[i].h;
			bytes += (double)v[i].n;
		}
		done += n;
	} while (cpu_s() - t0 < secs);
	double t = cpu_s() - t0;
	free(rgb);
	*mps = px / t / 1e6;
	*bps = bytes / (px / 1e0); /* bytes per pixel over the set */
	return (double)done / t;
}

struct args {
	double seconds;
	uint64_t count;
};

static const struct ts_opt opts[] = {
	{ "seconds", TS_OPT_DOUBLE, offsetof(struct args, seconds), "3", 0, 0, "s",
	  "time per set (half of it per reference photo)" },
	{ "count", TS_OPT_U64, offsetof(struct args, count), "300", 1, 0, "images",
	  "generated images to decode" },
	{ NULL },
};

int main(int argc, char **argv)
{
	struct args o;
	struct ts_opt_args a = { 0 };
	char err[256];
	tjhandle tj = tjInitDecompress();
	struct img *refs = NULL;
	size_t nref = 0;

	if (ts_opt_defaults(opts, &o, err, sizeof(err)) ||
	    ts_opt_parse_args(opts, &o, argc, argv, 0, &a, err, sizeof(err)) || a.help || !a.npos) {
		FILE *f = a.help ? stdout : stderr;
		fprintf(f, "%s%susage: dataset_decode DIR [--seconds S] [--count N] [REF.jpg...]\n",
			err, err[0] ? "\n" : "");
		ts_opt_help_args(f, opts);
		return a.help ? 0 : 2;
	}
	double secs = o.seconds;
	const char *dir = a.pos[0];
	for (int i = 1; i < a.npos; i++) {
		refs = realloc(refs, (nref + 1) * sizeof(*refs));
		if (load(a.pos[i], &refs[nref], tj)) {
			fprintf(stderr, "dataset_decode: %s: not a readable JPEG\n", a.pos[i]);
			return 1;
		}
		nref++;
	}
	walk(dir, tj, (size_t)o.count);
	if (!nimg) {
		fprintf(stderr, "dataset_decode: no .JPEG files under %s\n", dir);
		return 1;
	}
	double mps, bpp;
	double ips = bench(tj, imgs, nimg, secs, &mps, &bpp);
	printf("%-40s %8s %8s %9s %7s\n", "set (decode only, 1 core)", "img/s", "MP/s", "us/MP",
	       "B/px");
	printf("%-40s %8.0f %8.1f %9.0f %7.3f\n", "generated imagenet-jpeg", ips, mps, 1e6 / mps / 1,
	       bpp);
	double gen_us = 1.0 / mps;
	for (size_t r = 0; r < nref; r++) {
		double rm, rb;
		double ri = bench(tj, &refs[r], 1, secs / 2, &rm, &rb);
		const char *name = a.pos[1 + r];
		const char *base = strrchr(name, '/');
		printf("%-40.40s %8.0f %8.1f %9.0f %7.3f  (generated/this per MP: %.2f)\n",
		       base ? base + 1 : name, ri, rm, 1e6 / rm / 1, rb, gen_us * rm);
	}
	double w = 0, h = 0, b = 0;
	for (size_t i = 0; i < nimg; i++) {
		w += imgs[i].w;
		h += imgs[i].h;
		b += (double)imgs[i].n;
	}
	printf("generated set: %zu images, mean %.0fx%.0f, mean %.0f bytes\n", nimg, w / nimg,
	       h / nimg, b / nimg);
	return 0;
}
