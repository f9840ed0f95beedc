/*
 * fstree.h — a small tree for the file-system rule's tests (tier/fsmeta.h):
 * / (inode 2, 1 block), /a (a folder of 3 blocks, inode 20), /a/x (21),
 * /a/far (620: another inode-table window). @ctx counts the calls.
 */
#ifndef TS_TESTS_FSTREE_H
#define TS_TESTS_FSTREE_H

#include <errno.h>
#include <string.h>

#include "tier/fsmeta.h"

static inline int ts_test_stat_tree(void *ctx, const char *path, size_t len,
				    struct ts_fsmeta_node *out)
{
	unsigned *calls = ctx;
	++*calls;
	static const struct {
		const char *p;
		uint64_t ino, blocks;
	} tree[] = { { "/", 2, 1 }, { "/a", 20, 3 }, { "/a/x", 21, 0 }, { "/a/far", 620, 0 } };
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		if (strlen(tree[i].p) == len && memcmp(tree[i].p, path, len) == 0) {
			out->ino = tree[i].ino;
			out->blocks = tree[i].blocks;
			return 0;
		}
	return -ENOENT;
}

#endif
