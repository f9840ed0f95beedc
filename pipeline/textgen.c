/*
 * textgen.c — PennTreeBank-like corpus (see textgen.h).
 */
#include "pipeline/textgen.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

/*
 * The most frequent words of the PTB language-model corpus lead the
 * vocabulary, so a glance at the text reads like it; the rest are made-up
 * words of 1-4 syllables, longer for rarer ranks as in English.
 */
static const char *const head_words[] = {
	"the", "<unk>", "N", "of", "to", "a", "in", "and", "'s", "that", "for", "$",
	"is", "it", "said", "on", "by", "at", "as", "from", "million", "mr.", "with",
	"was", "be", "are", "its", "he", "but", "has", "an", "n't", "will", "have",
	"new", "or", "company", "they", "this", "year", "which", "would", "about",
	"says", "more", "were", "market", "billion", "his", "stock", "had", "up",
	"share", "one", "than", "who", "some", "been", "also", "other", "u.s.",
};

/* Zipf–Mandelbrot p(rank r) ~ 1 / (r + Q)^S, r from 1 (modeled). */
#define ZIPF_S 1.0
#define ZIPF_Q 1.5
/* Sentence length: lognormal, median and p99 in words, clipped to [1, 120]
 * (modeled so that the mean is about 21.1 words per line, the real
 * train file's 887,521 words / 42,068 lines). */
#define LEN_P50 19.1
#define LEN_P99 60.0

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

int ts_vocab_init(struct ts_vocab *v, uint32_t size)
{
	static const char *const cons[] = { "b", "c", "d", "f", "g", "h", "j", "k", "l", "m",
					    "n", "p", "r", "s", "t", "v", "w", "z", "st", "tr",
					    "ch", "sh", "pl", "br", "gr", "th" };
	static const char *const vow[] = { "a", "e", "i", "o", "u", "ea", "ou", "io", "y" };
	static const char *const tails[] = { "", "", "", "n", "s", "r", "t", "l", "ng", "ed", "er" };
	size_t nhead = TS_ARRAY_SIZE(head_words);
	size_t hcap = 1;
	uint32_t *table = NULL;
	struct ts_rng r;
	int err = -ENOMEM;

	memset(v, 0, sizeof(*v));
	if (size < nhead)
		return -EINVAL;
	while (hcap < (size_t)size * 2)
		hcap <<= 1;
	v->size = size;
	v->word = calloc(size, sizeof(*v->word));
	v->cdf = malloc(size * sizeof(*v->cdf));
	v->store = malloc((size_t)size * 24);
	table = calloc(hcap, sizeof(*table)); /* rank + 1, 0 = empty */
	if (!v->word || !v->cdf || !v->store || !table)
		goto out;

	ts_rng_seed(&r, 0x7074622d766f6361ULL); /* fixed: one vocabulary for every seed */
	char *o = v->store;
	for (uint32_t i = 0; i < size; i++) {
		char w[24];
		for (;;) {
			if (i < nhead) {
				snprintf(w, sizeof(w), "%s", head_words[i]);
			} else {
				unsigned syl = 1 + (i > 2000) + (unsigned)ts_rng_below(&r, i > 6000 ? 3 : 2);
				w[0] = 0;
				for (unsigned k = 0; k < syl; k++) {
					strcat(w, cons[ts_rng_below(&r, TS_ARRAY_SIZE(cons))]);
					strcat(w, vow[ts_rng_below(&r, TS_ARRAY_SIZE(vow))]);
				}
				strcat(w, tails[ts_rng_below(&r, TS_ARRAY_SIZE(tails))]);
			}
			size_t h = fnv(w) & (hcap - 1);
			bool dup = false;
			while (table[h]) {
				if (strcmp(v->word[table[h] - 1], w) == 0) {
					dup = true;
					break;
				}
				h = (h + 1) & (hcap - 1);
			}
			if (dup)
				continue;
			table[h] = i + 1;
			break;
		}
		size_t n = strlen(w) + 1;
		memcpy(o, w, n);
		v->word[i] = o;
		o += n;
	}
	double sum = 0;
	for (uint32_t i = 0; i < size; i++)
		sum += pow((double)i + 1.0 + ZIPF_Q, -ZIPF_S);
	double acc = 0;
	for (uint32_t i = 0; i < size; i++) {
		acc += pow((double)i + 1.0 + ZIPF_Q, -ZIPF_S) / sum;
		v->cdf[i] = acc;
	}
	v->cdf[size - 1] = 1.0;
	err = 0;
out:
	free(table);
	if (err)
		ts_vocab_free(v);
	return err;
}

void ts_vocab_free(struct ts_vocab *v)
{
	free(v->word);
	free(v->cdf);
	free(v->store);
	memset(v, 0, sizeof(*v));
}

static uint32_t draw_word(const struct ts_vocab *v, struct ts_rng *r)
{
	double u = ts_rng_double(r);
	uint32_t lo = 0, hi = v->size - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int ts_text_write(FILE *f, const struct ts_vocab *v, uint64_t seed, unsigned split,
		  uint64_t words, struct ts_text_counts *c)
{
	struct ts_rng r;
	char line[120 * 24 + 4];

	memset(c, 0, sizeof(*c));
	ts_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ULL * (split + 1)));
	while (c->words < words) {
		double l = ts_rng_lognormal(&r, LEN_P50, LEN_P99);
		uint64_t n = l < 1.0 ? 1 : l > 120.0 ? 120 : (uint64_t)l;
		if (n > words - c->words)
			n = words - c->words;
		size_t len = 0;
		line[len++] = ' ';
		for (uint64_t k = 0; k < n; k++) {
			const char *w = v->word[draw_word(v, &r)];
			size_t wl = strlen(w);
			memcpy(line + len, w, wl);
			len += wl;
			line[len++] = ' ';
		}
		line[len++] = '\n';
		if (f && fwrite(line, 1, len, f) != len)
			return errno ? -errno : -EIO;
		c->words += n;
		c->lines++;
		c->bytes += len;
	}
	return 0;
}
