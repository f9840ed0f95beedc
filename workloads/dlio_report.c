/* dlio_report.c — a DLIO run's results as text and JSON (dlio_report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "workloads/dlio_report.h"
#include "core/chrome.h"

void ts_dlio_print_outcome(FILE *f, const struct ts_dlio_opts *o, const struct ts_dlio_outcome *oc,
			   int ranks)
{
	const struct ts_dlio_result *best = oc->best, *show = o->find_max ? best : &oc->rs[0];
	if (o->find_max && !best) {
		const struct ts_dlio_result *one = &oc->rs[0]; /* the whole run of 1 */
		for (size_t i = 0; i < oc->nr; i++)
			if (oc->rs[i].n == 1 && !oc->rs[i].stopped)
				one = &oc->rs[i];
		fprintf(f, "%s on %s: no accelerator count keeps AU >= %.0f%% (1 accelerator: AU "
			   "%.2f%%)\n", o->workload, o->tier, 100 * oc->w.au, 100 * one->au);
		return;
	}
	char rn[32] = "";
	if (ranks)
		snprintf(rn, sizeof(rn), " (%d ranks)", ranks);
	if (show->passed && !show->pass_step) { /* decided before its first step */
		fprintf(f, "%s on %s (%s): %s%" PRIu64 " accelerators%s, AU at least %.2f%% "
			   "(decided before its first step: no draw of the model could make it "
			   "miss)\n", o->workload, o->tier, o->virtual_time ? "virtual" : "real",
			o->find_max ? "max " : "", show->n, rn, 100 * show->au);
		return;
	}
	if (show->passed) { /* stopped once it could not miss: AU's lower bound */
		fprintf(f, "%s on %s (%s): %s%" PRIu64 " accelerators%s, AU at least %.2f%% "
			   "(stopped after %" PRIu64 " of its steps, once no draw of the model could "
			   "make it miss), %.1f s modeled\n", o->workload, o->tier,
			o->virtual_time ? "virtual" : "real", o->find_max ? "max " : "", show->n, rn,
			100 * show->au, show->pass_step, show->run_s);
		return;
	}
	fprintf(f, "%s on %s (%s): %s%" PRIu64 " accelerators%s, AU %.2f%% (epochs %.2f-%.2f%%), "
		   "%.1f samples/s, %.1f MiB/s; %" PRIu64 " epochs of %" PRIu64 " steps, %.1f s "
		   "%s\n", o->workload, o->tier, o->virtual_time ? "virtual" : "real",
		o->find_max ? "max " : "", show->n, rn, 100 * show->au, 100 * show->au_min,
		100 * show->au_max, show->samples_s, show->mib_s, show->epochs, show->steps,
		o->virtual_time ? show->run_s : show->wall_s, o->virtual_time ? "modeled" : "run");
	if (o->virtual_time && !o->quiet)
		fprintf(stderr, "tiersim dlio: %" PRIu64 " events in %.2f s of host time (%.0f "
				"events/s), %" PRIu64 " read requests\n", show->events, show->wall_s,
			show->wall_s > 0 ? (double)show->events / show->wall_s : 0.0,
			show->read_requests);
}

void ts_dlio_print_instance(FILE *f, const struct ts_dlio_opts *o,
			    const struct ts_dlio_outcome *oc, const char *name)
{
	const struct ts_tier_ebs *e = &o->ebs;
	if (!oc->ebs) {
		fprintf(f, "instance %s: %s\n", name,
			ts_tier_ebs_any(e) ? "its EBS limits do not apply (the tier is not an EBS "
					     "volume)"
					   : "no EBS limits in its price profile");
		return;
	}
	fprintf(f, "instance %s: EBS limits %.0f IOPS (%.0f in a burst of %.0f s), %.2f MB/s "
		   "(%.2f) above the volume's own caps\n",
		name, e->iops, TS_MAX(e->max_iops, e->iops), e->burst_s, e->bps / 1e6,
		TS_MAX(e->max_bps, e->bps) / 1e6);
	const struct ts_dlio_result *r = o->find_max ? oc->best : oc->nr ? &oc->rs[0] : NULL;
	if (!o->virtual_time || !r)
		return;
	uint64_t vol = r->bound[TS_TIER_BOUND_IOPS] + r->bound[TS_TIER_BOUND_BW] +
		       r->bound[TS_TIER_BOUND_BURST];
	fprintf(f, "  requests held by the instance's limits (instance-bound): %" PRIu64
		   "; by the volume's caps (iops, bandwidth, burst): %" PRIu64 "\n",
		r->bound[TS_TIER_BOUND_INSTANCE], vol);
}

int ts_dlio_write_json(FILE *f, const struct ts_dlio_opts *o, const struct ts_dlio_outcome *oc,
		       int ranks)
{
	const struct ts_dlio_workload *w = &oc->w;
	const struct ts_dlio_result *rs = oc->rs;
	size_t nr = oc->nr;
	fprintf(f, "{\n  \"workload\": \"%s\", \"model\": \"%s\", \"tier\": \"%s\", \"clock\": \"%s\",\n"
		   "  \"ranks\": %d,\n"
		   "  \"au_threshold\": %.4f, \"record_length\": %.2f, \"batch_size\": %" PRIu64 ",\n"
		   "  \"host\": \"%s\",\n", o->workload, w->model, o->tier,
		o->virtual_time ? "virtual" : "real", ranks ? ranks : 1, w->au, w->record_length,
		w->batch_size, o->host ? o->host : "");
	if (o->host) {
		const struct ts_dlio_host_used *h = &oc->host;
		fprintf(f, "  \"host_costs\": { \"sample_us\": %.3f, \"sample_us_per_mib\": %.3f, "
			   "\"jpeg_us_per_mpix\": %.3f, \"step_us\": %.3f, \"request_us\": %.3f, "
			   "\"daemon_us\": %.3f, \"wait_us\": %.3f, \"run_request_us\": %.3f, "
			   "\"start_ms\": %.3f, \"restart_ms\": %.3f, \"collate_ms\": %.3f, "
			   "\"vcpus\": %" PRIu64 ", \"file\": ",
			h->sample_ns / 1e3, h->per_mib / 1e3, h->jpeg_per_mpix / 1e3, h->step_ns / 1e3,
			h->request_ns / 1e3, h->daemon_ns / 1e3, h->wait_ns / 1e3, h->run_ns / 1e3,
			h->start_ns / 1e6, h->restart_ns / 1e6, h->collate_ns / 1e6, h->vcpus);
		ts_json_put_str(f, h->host_file);
		fprintf(f, " },\n");
	}
	if (oc->ebs)
		fprintf(f, "  \"ebs\": { \"iops\": %.17g, \"max_iops\": %.17g, \"mbps\": %.17g, "
			   "\"max_mbps\": %.17g, \"burst_s\": %.17g },\n",
			o->ebs.iops, o->ebs.max_iops, o->ebs.bps / 1e6, o->ebs.max_bps / 1e6,
			o->ebs.burst_s);
	fprintf(f, "  \"runs\": [\n");
	for (size_t i = 0; i < nr; i++)
		if (!rs[i].passed)
			fprintf(f, "    { \"accelerators\": %" PRIu64 ", \"au\": %.6f, \"au_min\": %.6f, "
				   "\"au_max\": %.6f, \"samples_per_s\": %.3f, \"mib_per_s\": %.3f, "
				   "\"epochs\": %" PRIu64 ", \"steps_per_epoch\": %" PRIu64 ", "
				   "\"read_bytes\": %" PRIu64 ", \"read_requests\": %" PRIu64 ", "
				   "\"events\": %" PRIu64 ", \"instance_bound\": %" PRIu64 ", "
				   "\"bound_samples\": %" PRIu64 ", \"run_s\": %.3f, \"wall_s\": %.3f%s }%s\n",
				rs[i].n, rs[i].au, rs[i].au_min, rs[i].au_max, rs[i].samples_s, rs[i].mib_s,
				rs[i].epochs, rs[i].steps, rs[i].read_bytes, rs[i].read_requests,
				rs[i].events, rs[i].bound[TS_TIER_BOUND_INSTANCE], rs[i].bound_samples,
				rs[i].run_s, rs[i].wall_s,
				rs[i].stopped ? ", \"stopped\": true" : "", i + 1 < nr ? "," : "");
		else /* passed once it could not miss: au a lower bound */
			fprintf(f, "    { \"accelerators\": %" PRIu64 ", \"au\": %.6f, \"passed\": true, "
				   "\"pass_step\": %" PRIu64 ", \"steps_per_epoch\": %" PRIu64 ", "
				   "\"read_bytes\": %" PRIu64 ", \"read_requests\": %" PRIu64 ", "
				   "\"events\": %" PRIu64 ", \"bound_samples\": %" PRIu64 ", "
				   "\"run_s\": %.3f, \"wall_s\": %.3f }%s\n",
				rs[i].n, rs[i].au, rs[i].pass_step, rs[i].steps, rs[i].read_bytes,
				rs[i].read_requests, rs[i].events, rs[i].bound_samples, rs[i].run_s,
				rs[i].wall_s,
				i + 1 < nr ? "," : "");
	fprintf(f, "  ]");
	if (oc->best)
		fprintf(f, ",\n  \"max_accelerators\": %" PRIu64, oc->best->n);
	fprintf(f, "\n}\n");
	return ferror(f) ? -EIO : 0;
}

void ts_dlio_print_cheapest(FILE *f, const struct ts_dlio_opts *o, const char *tiers,
			    const struct ts_dlio_priced *got, size_t n, size_t best, size_t next,
			    const struct ts_instance *in)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%-14s %4llu accelerators  AU %6.2f%% %s %.0f%%  %9.1f samples/s  "
			   "%8.1f MiB/s  $%.2f/h [%.2f..%.2f]%s%s%s\n",
			got[i].tier, (unsigned long long)o->accelerators, 100 * got[i].run.au,
			got[i].reaches ? ">=" : "< ", 100 * got[i].au_threshold,
			got[i].run.samples_s, got[i].run.mib_s, got[i].hour.v, got[i].hour.low,
			got[i].hour.high, i == best ? "  <- cheapest that keeps it" : "",
			i == next ? "  (runner-up)" : "",
			got[i].clamped ? "  (local disk at its tier's largest size)" : "");
	if (best == (size_t)-1) {
		fprintf(f, "%s: no volume of %s keeps %llu accelerators at AU >= %.0f%%\n",
			o->workload, tiers, (unsigned long long)o->accelerators,
			n ? 100 * got[0].au_threshold : 0.0);
		return;
	}
	fprintf(f, "%s: %llu accelerators keep AU >= %.0f%% most cheaply on %s at $%.2f/h "
		   "(%s%s; each volume at %s)\n",
		o->workload, (unsigned long long)o->accelerators, 100 * got[best].au_threshold,
		got[best].tier, got[best].hour.v, in ? "with " : "the volume alone",
		in ? in->name : "",
		o->capacity ? "the given capacity"
			    : "its tier's default capacity, a local disk one of the instance's");
	if (next != (size_t)-1)
		fprintf(f, "runner-up %s costs $%.2f/h more\n", got[next].tier,
			got[next].hour.v - got[best].hour.v);
}
