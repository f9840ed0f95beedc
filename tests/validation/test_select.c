/*
 * test_select.c — which cases a validate command line selects
 * (validation/report.h), without running one: ids, files, globs and tags,
 * --skip-tag winning over every selector, and each selector that matched
 * marked used (an unused one is the command's usage error).
 */
#include <stdbool.h>
#include <string.h>

#include "tests/tcheck.h"
#include "validation/report.h"

int main(void)
{
	char *slow[] = { "slow" };
	struct ts_case a = { .id = "ebs-gp3-randread" };
	struct ts_case b = { .id = "dlio-unet3d-h100", .tags = slow, .ntags = 1 };
	struct ts_case *all[] = { &a, &b };
	bool used[4];

	/* none: every case, less the skipped tag */
	CHECK(ts_validate_selected(&a, NULL, 0, used, NULL));
	CHECK(ts_validate_selected(&b, NULL, 0, used, NULL));
	CHECK(!ts_validate_selected(&b, NULL, 0, used, "slow"));

	char *sel[] = { "ebs-*", "tag:slow", "cases/dlio-unet3d-h100.json", "nothing-*" };
	memset(used, 0, sizeof(used));
	CHECK(ts_validate_selected(&a, sel, 4, used, NULL));
	CHECK(ts_validate_selected(&b, sel, 4, used, NULL));
	CHECK(used[0] && used[1] && used[2] && !used[3]);
	/* a tag named and skipped: skipped */
	CHECK(!ts_validate_selected(&b, sel + 1, 1, used, "slow"));
	/* an id matches whole, not as a prefix */
	char *pre[] = { "ebs-gp3" };
	memset(used, 0, sizeof(used));
	CHECK(!ts_validate_selected(&a, pre, 1, used, NULL) && !used[0]);

	CHECK(ts_validate_in_corpus(all, 2, "dlio-unet3d-h100"));
	CHECK(!ts_validate_in_corpus(all, 2, "dlio-unet3d"));
	return tc_exit();
}
