/*
 * textgen.h — a PennTreeBank-like word corpus: the shape of Mikolov's
 * preprocessed PTB (simple-examples/data/ptb.{train,valid,test}.txt) that
 * LSTM language-model examples train on — lower-case words, numbers as
 * "N", rare words as "<unk>", a 10,000-word vocabulary, one sentence per
 * line written as " w1 w2 ... wn \n".
 *
 * Words are drawn from a Zipf law over the vocabulary ranks and sentence
 * lengths from a lognormal; both are modeled, not fitted to the real
 * corpus (whose text is licensed and not shipped). The vocabulary is the
 * same for every seed; the text depends on the seed and the split.
 */
#ifndef TS_TEXTGEN_H
#define TS_TEXTGEN_H

#include <stdint.h>
#include <stdio.h>

#include "core/ts.h"

struct ts_vocab {
	uint32_t size;
	char **word;		/* by rank, most frequent first */
	double *cdf;		/* cumulative Zipf probabilities by rank */
	char *store;
};

/* Builds the @size-word vocabulary (size >= 16). */
TS_WUR int ts_vocab_init(struct ts_vocab *v, uint32_t size);
void ts_vocab_free(struct ts_vocab *v);

struct ts_text_counts {
	uint64_t words;		/* excluding the end-of-sentence marks */
	uint64_t lines;
	uint64_t bytes;
};

/*
 * Writes @words words of split @split (0 train, 1 valid, 2 test) to @f, or
 * only counts them when @f is NULL (the same counts, byte for byte).
 * Returns 0 or -errno from writing.
 */
TS_WUR int ts_text_write(FILE *f, const struct ts_vocab *v, uint64_t seed, unsigned split,
			 uint64_t words, struct ts_text_counts *c);

#endif
