/* verdict_vocab.c: see verdict_vocab.h. */
#include "verdict_vocab.h"

#include <string.h>

struct words {
	const char *id, *title, *sentence;
};

#define VOCAB_ROW(id, title, sentence) {#id, title, sentence},
static const struct words outcomes[] = {VERDICT_OUTCOMES(VOCAB_ROW)};
static const struct words causes[] = {VERDICT_CAUSES(VOCAB_ROW)};
#undef VOCAB_ROW

static const char *words_of(const struct words *w, size_t n, const char *id, int sentence)
{
	size_t i = 0;
	while (i + 1 < n && (!id || strcmp(id, w[i].id) != 0))
		i++;
	return sentence ? w[i].sentence : w[i].title;
}

const char *vocab_outcome_words(const char *outcome, int sentence)
{
	return words_of(outcomes, sizeof(outcomes) / sizeof(outcomes[0]), outcome, sentence);
}

const char *vocab_cause_words(const char *cause, int sentence)
{
	return words_of(causes, sizeof(causes) / sizeof(causes[0]), cause, sentence);
}
