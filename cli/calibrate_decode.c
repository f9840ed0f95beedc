/*
 * calibrate_decode.c — `tiersim calibrate decode`: measures what decoding
 * and transforming one JPEG costs a core of this machine and stores it, so
 * that the loader's modeled decode mode (used when more vCPUs are emulated
 * than the host has cores) charges a measured cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/opt.h"
#include "core/units.h"
#include "pipeline/decode.h"
#include "pipeline/loader.h"

struct cal_cfg {
	char *dir;
	uint64_t count;
	uint64_t seconds; /* ns */
	char *out;
	uint64_t out_size;
	uint64_t resize;
};

static const struct ts_opt cal_opts[] = {
	{ "dir", TS_OPT_STR, offsetof(struct cal_cfg, dir), "", 0, 0, "",
	  "folder of JPEG files (class sub-folders or flat), e.g. made by 'tiersim dataset make "
	  "imagenet-jpeg'" },
	{ "count", TS_OPT_U64, offsetof(struct cal_cfg, count), "200", 1, 1e7, "images",
	  "images to use, spread over the folder" },
	{ "seconds", TS_OPT_DURATION, offsetof(struct cal_cfg, seconds), "3", 0, 0, "s",
	  "CPU time to spend measuring (whole passes over the images)" },
	{ "out", TS_OPT_STR, offsetof(struct cal_cfg, out), "", 0, 0, "",
	  "calibration file to write (default ~/.cache/tiersim/decode.json)" },
	{ "out_size", TS_OPT_U64, offsetof(struct cal_cfg, out_size), "224", 8, 4096, "pixels",
	  "model input side, as the loader's out_size" },
	{ "resize", TS_OPT_U64, offsetof(struct cal_cfg, resize), "256", 0, 8192, "pixels",
	  "shorter side before the crop, as the loader's resize" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tiersim calibrate decode --dir DIR [--OPTION VALUE]...\n"
		   "Times libjpeg-turbo decode alone and decode + resize + crop + flip + normalize\n"
		   "on one core, fits the cost per image as base + per-megapixel, and writes it\n"
		   "where the loader's modeled decode mode reads it.\n\n"
		   "options (--NAME VALUE or --NAME=VALUE; out-size and out_size alike):\n");
	ts_opt_help(f, cal_opts);
}

int ts_calibrate_decode(int argc, char **argv)
{
	struct cal_cfg c = { 0 };
	char err[1024];
	int rc = TS_EXIT_USAGE;
	if (ts_opt_defaults(cal_opts, &c, err, sizeof err)) {
		fprintf(stderr, "tiersim calibrate decode: %s\n", err);
		return TS_EXIT_FAIL;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			ts_opt_free(cal_opts, &c);
			return TS_EXIT_OK;
		}
		if (strncmp(a, "--", 2)) {
			fprintf(stderr, "tiersim calibrate decode: unexpected argument '%s' (see --help)\n", a);
			goto out;
		}
		char name[64];
		const char *eq = strchr(a + 2, '='), *val;
		size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(name, sizeof name, "%.*s", (int)nl, a + 2);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "tiersim calibrate decode: option '--%s' needs a value\n", name);
			goto out;
		}
		if (ts_opt_set(cal_opts, &c, name, val, err, sizeof err)) {
			fprintf(stderr, "tiersim calibrate decode: %s\n", err);
			goto out;
		}
	}
	if (!*c.dir) {
		fprintf(stderr, "tiersim calibrate decode: --dir DIR is needed (a folder of JPEGs; "
				"'tiersim dataset make imagenet-jpeg --count 500 --out DIR' makes one)\n");
		goto out;
	}
	char path[4096];
	if (*c.out)
		snprintf(path, sizeof path, "%s", c.out);
	else if (ts_pipe_default_calibration(path, sizeof path)) {
		fprintf(stderr, "tiersim calibrate decode: no HOME for the default file; give --out FILE\n");
		goto out;
	}
	rc = TS_EXIT_FAIL;
	uint8_t **jpeg;
	size_t *len, n;
	if (ts_decode_load_dir(c.dir, c.count, &jpeg, &len, &n, err, sizeof err)) {
		fprintf(stderr, "tiersim calibrate decode: %s\n", err);
		goto out;
	}
	struct ts_decode_cal cal;
	struct ts_decode_cal_detail det;
	int crc = ts_decode_calibrate((const uint8_t *const *)jpeg, len, n, (unsigned)c.out_size,
				      (unsigned)c.resize, c.seconds, &cal, &det, err, sizeof err);
	for (size_t i = 0; i < n; i++)
		free(jpeg[i]);
	free(jpeg);
	free(len);
	if (crc) {
		fprintf(stderr, "tiersim calibrate decode: %s: %s\n", c.dir, err);
		goto out;
	}
	if (ts_decode_cal_save(path, &cal, err, sizeof err)) {
		fprintf(stderr, "tiersim calibrate decode: %s\n", err);
		goto out;
	}
	printf("decode calibration on %s (one core, thread CPU time)\n"
	       "  images        %zu distinct from %s, %llu decodes, mean %.2f Mpixel, %.1f KB\n"
	       "  decode only   %.0f images/s/core (libjpeg-turbo to RGB, full size)\n"
	       "  + transform   %.0f images/s/core (resize %llu, crop %llu, flip, normalize)\n"
	       "  model         %.0f ns + %.0f ns/Mpixel per image (what decode=modeled charges)\n"
	       "  published     456-857 images/s/core, decode only, ImageNet val in RAM\n"
	       "                (ternaus/imread_benchmark via arXiv 2501.13131; simplejpeg)\n"
	       "  written       %s\n",
	       cal.cpu[0] ? cal.cpu : "this host", det.distinct, c.dir,
	       (unsigned long long)cal.images, det.mean_mpix, det.mean_bytes / 1e3, cal.decode_ips,
	       cal.full_ips, (unsigned long long)c.resize, (unsigned long long)c.out_size,
	       cal.base_ns, cal.ns_per_mpix, path);
	rc = TS_EXIT_OK;
out:
	ts_opt_free(cal_opts, &c);
	return rc;
}
