/*
 * report.c — a replay's result: the tallies every replay keeps (the op
 * classes, latency histograms) and the side-by-side table and JSON of
 * several.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/units.h"
#include "traces/replay/replay_int.h"

int replay_lat_class(unsigned op)
{
	if (op == TS_OP_READ || op == TS_OP_MMAP_READ)
		return TS_REPLAY_READ;
	return op == TS_OP_WRITE ? TS_REPLAY_WRITE : TS_REPLAY_OTHER;
}

uint64_t replay_rec_bytes(const struct ts_trace_rec *r)
{
	return replay_lat_class(r->op) != TS_REPLAY_OTHER && r->result > 0 ? (uint64_t)r->result : 0;
}

void replay_result_init(struct ts_replay_result *res, const char *what)
{
	memset(res, 0, sizeof(*res));
	snprintf(res->what, sizeof(res->what), "%s", what);
	for (unsigned i = 0; i < TS_ARRAY_SIZE(res->lat); i++)
		ts_hist_init(&res->lat[i]);
}

void replay_result_add(struct ts_replay_result *res, unsigned op, uint64_t lat, uint64_t bytes)
{
	res->ops++;
	res->bytes += bytes;
	res->io_ns += lat;
	ts_hist_add(&res->lat[TS_REPLAY_ALL], lat);
	ts_hist_add(&res->lat[replay_lat_class(op)], lat);
}

void ts_replay_print(FILE *f, const struct ts_replay_result *res, size_t n)
{
	char b[32];

	fprintf(f, "%-18s", "");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %16.16s", res[i].what);
	fputc('\n', f);
#define ROW(label, expr)                                                                           \
	do {                                                                                       \
		fprintf(f, "%-18s", label);                                                        \
		for (size_t i = 0; i < n; i++) {                                                   \
			const struct ts_replay_result *r = &res[i];                                \
			fprintf(f, " %16s", (expr));                                               \
		}                                                                                  \
		fputc('\n', f);                                                                    \
	} while (0)
	ROW("total time", ts_fmt_duration(b, 32, r->total_ns));
	ROW("ops", (snprintf(b, 32, "%" PRIu64, r->ops), b));
	ROW("IOPS", (snprintf(b, 32, "%.0f", r->total_ns ? r->ops / (r->total_ns / 1e9) : 0.0), b));
	ROW("MB/s", (snprintf(b, 32, "%.1f",
			      r->total_ns ? (double)r->bytes / 1e6 / (r->total_ns / 1e9) : 0.0),
		     b));
	ROW("IO wait (sum)", ts_fmt_duration(b, 32, r->io_ns));
	ROW("think (sum)", ts_fmt_duration(b, 32, r->think_ns));
	bool waited = false;
	for (size_t i = 0; i < n; i++)
		waited |= res[i].waited_ns > 0;
	if (waited)
		ROW("  waiting (rec.)", ts_fmt_duration(b, 32, r->waited_ns));
	static const struct {
		const char *label;
		int cls;
		double p;
	} pcts[] = {
	    {"lat p50", TS_REPLAY_ALL, 50},	{"lat p90", TS_REPLAY_ALL, 90},
	    {"lat p99", TS_REPLAY_ALL, 99},	{"lat p99.9", TS_REPLAY_ALL, 99.9},
	    {"read p50", TS_REPLAY_READ, 50},	{"read p99", TS_REPLAY_READ, 99},
	    {"write p50", TS_REPLAY_WRITE, 50}, {"write p99", TS_REPLAY_WRITE, 99},
	};
	for (size_t k = 0; k < TS_ARRAY_SIZE(pcts); k++) {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= res[i].lat[pcts[k].cls].count > 0;
		if (any)
			ROW(pcts[k].label,
			    r->lat[pcts[k].cls].count
				? ts_fmt_duration(
				      b, 32, ts_hist_percentile(&r->lat[pcts[k].cls], pcts[k].p))
				: "-");
	}
	ROW("lat max", ts_fmt_duration(b, 32, r->lat[TS_REPLAY_ALL].max));
	ROW("errors", (snprintf(b, 32, "%" PRIu64, r->errors), b));
	bool held = false;
	for (size_t i = 0; i < n; i++)
		held |= res[i].held > 0;
	if (held)
		ROW("held (not reissued)", (snprintf(b, 32, "%" PRIu64, r->held), b));
	bool outside = false;
	for (size_t i = 0; i < n; i++)
		outside |= res[i].outside > 0;
	if (outside) /* block mode's mount and unmount */
		ROW("left out (not the command's)",
		    (snprintf(b, 32, "%" PRIu64, r->outside), b));
	bool tied = false;
	for (size_t i = 0; i < n; i++)
		tied |= res[i].tied > 0;
	if (tied) /* block mode: the device's requests the command waited for */
		ROW("tied to its waits", (snprintf(b, 32, "%" PRIu64, r->tied), b));
	bool lead = false;
	for (size_t i = 0; i < n; i++)
		lead |= res[i].lead_ns > 0;
	if (lead) /* the command's start, before its first request */
		ROW("before the first IO", ts_fmt_duration(b, 32, r->lead_ns));
	bool trail = false;
	for (size_t i = 0; i < n; i++)
		trail |= res[i].trail_ns > 0;
	if (trail) /* the command's exit, after its other threads ended */
		ROW("after the others", ts_fmt_duration(b, 32, r->trail_ns));
	bool band = false;
	for (size_t i = 0; i < n; i++)
		band |= res[i].band_hi_ns > 0;
	if (band) { /* --band: the recording's fastest and slowest part's pace */
		ROW("band low", r->band_hi_ns ? ts_fmt_duration(b, 32, r->band_lo_ns) : "-");
		ROW("band high", r->band_hi_ns ? ts_fmt_duration(b, 32, r->band_hi_ns) : "-");
	}
	if (n > 1 && !strcmp(res[0].what, "recorded"))
		ROW("vs recorded",
		    (snprintf(b, 32, "%+.2f%%",
			      res[0].total_ns
				  ? 100.0 * ((double)r->total_ns - (double)res[0].total_ns) /
					(double)res[0].total_ns
				  : 0.0),
		     b));
#undef ROW
}

static json_t *hist_json(const struct ts_hist *h)
{
	return json_pack("{sI sf sI sI sI sI sI}", "count", (json_int_t)h->count, "mean_ns",
			 ts_hist_mean(h), "p50_ns", (json_int_t)ts_hist_percentile(h, 50), "p90_ns",
			 (json_int_t)ts_hist_percentile(h, 90), "p99_ns",
			 (json_int_t)ts_hist_percentile(h, 99), "p99_9_ns",
			 (json_int_t)ts_hist_percentile(h, 99.9), "max_ns", (json_int_t)h->max);
}

json_t *ts_replay_json(const struct ts_replay_result *res, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		const struct ts_replay_result *r = &res[i];
		json_t *bound = json_object();
		for (unsigned b = 0; b < TS_TIER_BOUND_NR; b++)
			if (r->bound[b])
				json_object_set_new(bound,
						    ts_tier_bound_name((enum ts_tier_bound)b),
						    json_integer((json_int_t)r->bound[b]));
		json_array_append_new(
		    a, json_pack("{ss sI sI sI sI sI sI sI sI sI so so so so so}", "what", r->what,
				 "held", (json_int_t)r->held, "outside", (json_int_t)r->outside,
				 "total_ns", (json_int_t)r->total_ns,
				 "ops", (json_int_t)r->ops, "bytes", (json_int_t)r->bytes,
				 "io_wait_ns", (json_int_t)r->io_ns, "think_ns",
				 (json_int_t)r->think_ns, "waited_ns", (json_int_t)r->waited_ns,
				 "errors", (json_int_t)r->errors, "latency",
				 hist_json(&r->lat[TS_REPLAY_ALL]), "read",
				 hist_json(&r->lat[TS_REPLAY_READ]), "write",
				 hist_json(&r->lat[TS_REPLAY_WRITE]), "other",
				 hist_json(&r->lat[TS_REPLAY_OTHER]), "bound", bound));
		if (r->dev_read_bytes) /* virtual: what the device read */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1),
					    "device_read_bytes",
					    json_integer((json_int_t)r->dev_read_bytes));
		if (r->dev_reads) /* virtual: the device's read requests */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1),
					    "device_reads", json_integer((json_int_t)r->dev_reads));
		if (r->meta_reads) /* virtual: the file system's metadata reads among them */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1),
					    "metadata_reads", json_integer((json_int_t)r->meta_reads));
		if (r->lead_ns) /* the span's start before the first request */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "lead_ns",
					    json_integer((json_int_t)r->lead_ns));
		if (r->trail_ns) /* the span's end after the other threads' */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "trail_ns",
					    json_integer((json_int_t)r->trail_ns));
		if (r->from_issue) /* block mode: charged from the recorded issue */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1),
					    "from_issue", json_integer((json_int_t)r->from_issue));
		if (r->tied) /* block mode: requests tied to the command's waits */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "tied",
					    json_integer((json_int_t)r->tied));
		if (r->band_hi_ns) /* --band */
			json_object_set_new(
			    json_array_get(a, json_array_size(a) - 1), "band",
			    json_pack("{sI sI sI sI}", "low_ns", (json_int_t)r->band_lo_ns, "high_ns",
				      (json_int_t)r->band_hi_ns, "low_first_ns",
				      (json_int_t)r->band_lo_first_ns, "high_first_ns",
				      (json_int_t)r->band_hi_first_ns));
		if (r->cpu_cap > 0) { /* the CPU model's CPUs, and the gaps it served */
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "cpu_cap",
					    json_real(r->cpu_cap));
			json_object_set_new(json_array_get(a, json_array_size(a) - 1), "cpu_gaps",
					    json_integer((json_int_t)r->cpu_gaps));
		}
	}
	return a;
}

void ts_replay_print_run(FILE *f, const char *file, const struct ts_replay_set *s,
			 bool overridden, const struct ts_replay_result *res, size_t nres)
{
	const struct ts_trace *t = &s->t;
	const struct ts_replay_cfg *cfg = &s->cfg;
	uint64_t rec_floor = s->rec_floor;
	char b1[32], b2[32];
	fprintf(f, "trace %s: %zu ops, recorded on %s (capacity %s, mem %s)", file, t->nrecs,
		t->hdr.tier[0] ? t->hdr.tier : "a plain directory",
		t->hdr.capacity ? ts_fmt_size(b1, sizeof(b1), t->hdr.capacity) : "-",
		t->hdr.mem ? ts_fmt_size(b2, sizeof(b2), t->hdr.mem) : "none");
	if (overridden) /* --capacity/--mem: say what the tiers ran with instead */
		fprintf(f, "; replayed with capacity %s, mem %s",
			ts_fmt_size(b1, sizeof(b1), cfg->tier.capacity),
			cfg->tier.mem ? ts_fmt_size(b2, sizeof(b2), cfg->tier.mem) : "none");
	fputc('\n', f);
	fprintf(f, "%s; %s%s; virtual columns: modeled (tier profiles), measured: real time\n\n",
		cfg->wakes ? "the wake rule: each wait on another thread follows that thread"
		: cfg->closed_loop ? "closed loop per thread"
				   : "per thread, work kept and waiting elastic",
		cfg->no_think ? "no think time" : "recorded think time",
		cfg->speed != 1.0 ? " scaled by --speed" : "");
	if (ts_tier_ebs_any(&s->ebs))
		fprintf(f, "the instance's EBS limits (%s) on the aws-* tiers: %.6g IOPS, %.6g MB/s; "
			   "%.6g IOPS, %.6g MB/s for %.6g s from a full bucket\n\n",
			s->ebs_given ? "--instance" : "the recording's", s->ebs.iops,
			s->ebs.bps / 1e6,
			s->ebs.max_iops > s->ebs.iops ? s->ebs.max_iops : s->ebs.iops,
			s->ebs.max_bps > s->ebs.bps ? s->ebs.max_bps / 1e6 : s->ebs.bps / 1e6,
			s->ebs.burst_s);
	ts_replay_print(f, res, nres);
	/* the virtual columns' floor, as given (--floor), without the hop */
	uint64_t vfloor = cfg->tier.floor_ns - TS_MIN(cfg->tier.floor_ns, cfg->loop_hop_ns);
	if (s->rec_hop && !cfg->kernel_fs) {
		char hb[32];
		fprintf(f, "\nblock mode: the recording's loop-device hop (%s) was taken off the "
			   "modeled latency with the FUSE round trip, and is in the virtual columns "
			   "as it was in the recording\n",
			ts_fmt_duration(hb, sizeof(hb), s->rec_hop));
	}
	if (s->t.nissue && !cfg->kernel_fs)
		fprintf(f, "block mode: %zu of the recording's requests were charged from the loop "
			   "device's issue (its request clock, the trace's issue items); here "
			   "too, from the same lead before their receipt, their replies as much "
			   "before the model's completion as recorded, without the hop and its "
			   "parts\n",
			s->t.nissue);
	if (cfg->loop_size_ns || cfg->loop_window_ns) {
		char sb[32], wb[32];
		fprintf(f, "block mode: the loop device's size part (%s for a 128 KiB request, "
			   "in proportion past 4 KiB) and window part (%s a read) were taken off "
			   "each request's latency in the recording; %s\n",
			ts_fmt_duration(sb, sizeof(sb), cfg->loop_size_ns),
			ts_fmt_duration(wb, sizeof(wb), cfg->loop_window_ns),
			cfg->kernel_fs ? "here they come off the gap after it (a VM's disk has "
					 "neither)"
				       : "here too, as in the recording");
	}
	if (rec_floor || cfg->tier.floor_ns) {
		char fb[32], ob[32];
		/* Recorded and virtual latencies are what tierfs held each
		 * request; the application also paid the FUSE round trip. */
		fprintf(f, "\nlatencies of the recorded and virtual columns are the time tierfs "
			   "holds a request; the application also pays the FUSE round trip "
			   "(%s, the recording's floor%s%s), so a tier faster than that shows "
			   "near 0\n",
			ts_fmt_duration(fb, sizeof(fb), rec_floor),
			vfloor != rec_floor ? "; virtual columns: --floor " : "",
			vfloor != rec_floor ? ts_fmt_duration(ob, sizeof(ob), vfloor) : "");
	}
}
