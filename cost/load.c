/*
 * load.c — the price profiles loaded and checked against the other
 * profiles they name: a volume's tiers and an instance's local disk are
 * tier profiles (tier/tiers.lua), an instance's host a host profile
 * (pipeline/hosts.lua). Apart from price.c so that reading prices needs
 * neither.
 */
#include <stdlib.h>

#include "pipeline/host.h"
#include "cost/price.h"
#include "tier/tier.h"

struct known {
	const struct ts_tier_set *tiers;
	const struct ts_host_set *hosts;
};

static bool has_tier(void *ctx, const char *name)
{
	return ts_tier_set_find(((struct known *)ctx)->tiers, name) != NULL;
}

static bool has_host(void *ctx, const char *name)
{
	struct ts_decode_cal cal;
	char err[512];
	return ts_host_cal(((struct known *)ctx)->hosts, name, TS_HOST_NOMINAL, &cal, err,
			   sizeof(err)) == 0;
}

int ts_price_load_checked(const char *extra, const struct ts_tier_set *tiers,
			  struct ts_price_set **out, char *err, size_t errlen)
{
	struct ts_price_set *s = NULL;
	struct ts_tier_set *own = NULL;
	struct ts_host_set *hosts = NULL;
	int rc = ts_price_set_load_default(&s, err, errlen);
	if (!rc && extra)
		rc = ts_price_set_add_file(s, extra, err, errlen);
	if (!rc && !tiers && !(rc = ts_tier_set_load_default(&own, err, errlen)))
		tiers = own;
	if (!rc)
		rc = ts_host_set_load_default(&hosts, err, errlen);
	if (!rc) {
		struct known k = { .tiers = tiers, .hosts = hosts };
		rc = ts_price_set_check(s, has_tier, has_host, &k, err, errlen);
	}
	ts_tier_set_free(own);
	ts_host_set_free(hosts);
	if (rc) {
		ts_price_set_free(s);
		s = NULL;
	}
	*out = s;
	return rc;
}
