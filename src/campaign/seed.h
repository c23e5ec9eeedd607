/* Seeding a shard's run directory from one that was already built and
 * KAT-tested as a whole (run --cpus, cores.h): the shard then reuses that
 * work instead of compiling and testing again. The build is copied whole
 * (build.json, lib/, logs/build/), since every shard holds every library;
 * of the KAT results only the shard's own instances' entries and files are
 * copied, since merge takes each instance's KAT files from the one shard
 * that owns it. The stages then check each result against its library as
 * they always do (build and KAT resumption), so a seed can only save work,
 * never stand in for a stale result. */
#ifndef HB_CAMPAIGN_SEED_H
#define HB_CAMPAIGN_SEED_H

#include "common/strlist.h"
#include "common/err.h"

/* Copies SEED's build.json, lib/ and logs/build/ into DIR when DIR has no
 * build.json yet. */
int seed_build(const char *seed, const char *dir, hb_err *err);

/* Copies the kat.json entries of MINE ("cand/Inst") that DIR's kat.json
 * lacks, with their logs and KAT texts, from SEED into DIR. */
int seed_kat(const char *seed, const char *dir, const strlist *mine, hb_err *err);

#endif
