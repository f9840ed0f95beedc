/*
 * replay.c — what a replay takes from beside the trace's records: the
 * tier-model options the recording ran with (its header) and its wake
 * file. The rule itself is in replay.h; the files of this folder:
 * rules.c (when a thread issues), virtual.c and real.c (the two clocks),
 * recorded.c (the recording's own figures), augment.c (the wake file as
 * records), cpu.c (the CPU model), report.c (the tables).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/opt.h"
#include "replay.h"

int ts_replay_wakes_beside(const char *trace, struct ts_wakes *s, char *err, size_t errlen)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s.wakes", trace) >= sizeof(path) ||
	    access(path, F_OK))
		return 0;
	int e = ts_wakes_read(path, s, err, errlen);
	return e ? e : 1;
}

void ts_replay_tier_recorded(const struct ts_trace *t, struct ts_tier_cfg *cfg)
{
	char buf[sizeof(t->hdr.mount_opts)], err[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", t->hdr.mount_opts);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq = 0;
		if (ts_opt_find(ts_tier_cfg_opts, kv))
			(void)!ts_opt_set(ts_tier_cfg_opts, cfg, kv, eq + 1, err, sizeof(err));
	}
	if (t->hdr.capacity)
		cfg->capacity = t->hdr.capacity;
	if (t->hdr.mem)
		cfg->mem = t->hdr.mem;
}
