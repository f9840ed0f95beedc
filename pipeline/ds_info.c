/*
 * ds_info.c — a dataset's description as tiersim dataset info and list print
 * it (dataset.h): what it stores and how, its sizes and pixels, and per
 * sample its file, size, dimensions and label.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "pipeline/dataset.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

void ts_dataset_print_info(FILE *f, const struct ts_dataset_meta *m, bool on_disk)
{
	char a[32], b[32], c[32], d[32];

	char how[160];
	bool estimated = false;

	fprintf(f, "kind          %s (%s)\n", m->kind->name,
	       on_disk ? "on disk, from dataset.json" : "described: nothing written");
	fprintf(f, "seed          %" PRIu64 "\n", m->seed);
	m->kind->storage(m, how, sizeof(how));
	fprintf(f, "stored as     %s\n", how);
	if (m->per_file) { /* files of samples (npz, tfrecord) */
		fprintf(f, "samples       %" PRIu64 " in %" PRIu64 " files, %s stored\n", m->samples,
		       m->count, ts_fmt_size(a, sizeof(a), m->sample_bytes));
	} else if (!(m->kind->caps & TS_DS_IMAGES)) {
		for (size_t s = 0; s < m->nfiles && s < 3; s++)
			fprintf(f, "%-13s %" PRIu64 " words, %" PRIu64 " lines, %s\n", m->files[s].path,
			       m->words[s], m->lines[s], ts_fmt_size(a, sizeof(a), m->files[s].bytes));
	} else {
		fprintf(f, "images        %" PRIu64 " train", m->count);
		if (m->val)
			fprintf(f, " + %" PRIu64 " val", m->val);
		fprintf(f, ", %" PRIu32 " classes\n", m->classes);
		uint32_t *s = malloc(m->samples * sizeof(*s));
		double px = 0, w = 0, h = 0;
		if (s && m->samples) {
			memcpy(s, m->bytes, m->samples * sizeof(*s));
			qsort(s, m->samples, sizeof(*s), cmp_u32);
			for (uint64_t i = 0; i < m->samples; i++) {
				px += (double)m->width[i] * m->height[i];
				w += m->width[i];
				h += m->height[i];
			}
			uint64_t n = m->samples;
			fprintf(f, "sample bytes  mean %s, p10 %s, p50 %s, p90 %s, max %" PRIu32 "\n",
			       ts_fmt_size(a, sizeof(a), m->sample_bytes / n),
			       ts_fmt_size(b, sizeof(b), s[n / 10]), ts_fmt_size(c, sizeof(c), s[n / 2]),
			       ts_fmt_size(d, sizeof(d), s[n * 9 / 10]), s[n - 1]);
			fprintf(f, "pixels        mean %.0fx%.0f, %.0f per image\n", w / (double)n,
			       h / (double)n, px / (double)n);
		}
		free(s);
	}
	for (size_t i = 0; i < m->nfiles; i++) {
		if (m->per_file && i == 3 && m->nfiles > 4) { /* 'list' has them all */
			fprintf(f, "file          ... %zu more\n", m->nfiles - 3);
			break;
		}
		fprintf(f, "file          %s  %" PRIu64 " bytes%s\n", m->files[i].path,
		       m->files[i].bytes, m->files[i].estimated ? " (estimated)" : "");
		estimated |= m->files[i].estimated;
	}
	fprintf(f, "total         %s (%" PRIu64 " bytes)%s\n", ts_fmt_size(a, sizeof(a), m->total_bytes),
	       m->total_bytes, estimated ? " (file sizes estimated)" : "");
}

void ts_dataset_print_list(FILE *f, const struct ts_dataset_meta *m)
{
	char name[192];

	if (m->per_file) {
		fprintf(f, "# index\tfile\tbytes\n");
		for (uint64_t j = 0; j < m->samples; j++)
			fprintf(f, "%" PRIu64 "\t%s\t%" PRIu64 "\n", j, m->files[j / m->per_file].path,
			       ts_dataset_sample_len(m, j));
		return;
	}
	if (!(m->kind->caps & TS_DS_IMAGES)) {
		for (size_t i = 0; i < m->nfiles && i < 3; i++)
			fprintf(f, "%zu\t%s\t%" PRIu64 "\t%" PRIu64 " words\t%" PRIu64 " lines\n", i,
			       m->files[i].path, m->files[i].bytes, m->words[i], m->lines[i]);
		return;
	}
	fprintf(f, "# index\t%s\tbytes\twidth\theight\tlabel\n", m->kind->sample_column);
	for (uint64_t j = 0; j < m->samples; j++) {
		m->kind->sample_name(m, j, name, sizeof(name));
		fprintf(f, "%" PRIu64 "\t%s\t%" PRIu32 "\t%u\t%u\t%u\n", j, name, m->bytes[j],
		       m->width[j], m->height[j], m->label[j]);
	}
}
