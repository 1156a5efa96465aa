/* inspector.c - the Inspector's public life (model.h): options, open
 * (an ETDump, a legacy profiler dump, an ETRecord and a BundledProgram
 * joined to it), ready, free, the reference case of a block.  The model
 * itself is built by builder.c (model_int.h). */
#include "model/model.h"
#include "model/model_int.h"

#include "model/link.h"
#include "base/bigalloc.h"
#include "model/proglink.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void et_inspector_options_init(et_inspector_options *o)
{
    memset(o, 0, sizeof *o);
    o->source_time_scale = ET_TS_NS;
    o->target_time_scale = ET_TS_MS;
    o->bundled_test_case = -1;
}

static int assign_reference_outputs(et_inspector *insp, et_error *err);

static et_inspector *open_legacy(const et_inspector_options *o, et_error *err)
{
    et_inspector *insp = calloc(1, sizeof(et_inspector_int));
    if (!insp) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    insp->source_time_scale = o->source_time_scale;
    insp->target_time_scale = o->source_time_scale == ET_TS_CYCLES ? ET_TS_CYCLES : ET_TS_MS;
    insp->scale_factor = 1.0;
    const uint8_t *data;
    size_t size;
    if (o->profile_results_path) {
        insp->etdump_label = o->profile_results_path;
        /* read in full, and what is built grows with it (a few words per
         * entry): refused from its size beyond the format's limit */
        static const et_map_options legacy_limit = {
            (uint64_t)UINT32_MAX,
            "larger than a legacy profiler dump can be (4 GiB: prof_result_t's num_bytes is 32-bit)",
            true, false};
        if (et_map_file_ex(&insp->etdump_file, o->profile_results_path, &legacy_limit, err) != 0)
            goto fail;
        data = insp->etdump_file.data;
        size = insp->etdump_file.size;
    } else {
        insp->etdump_label = "<profile_results_data>";
        data = o->profile_results_data;
        size = o->profile_results_size;
    }
    insp->legacy = et_legacy_read(data, size, insp->etdump_label, o->source_time_scale, err);
    if (!insp->legacy || et_model_from_legacy(insp, err) != 0 ||
        assign_reference_outputs(insp, err) != 0)
        goto fail;
    for (size_t i = 0; i < insp->legacy->warnings.n; i++)
        if (et_warnings_add(&insp->warnings, "%s", insp->legacy->warnings.items[i]) != 0) {
            et_fail(err, ET_ERR_NOMEM, "out of memory");
            goto fail;
        }
    return insp;
fail:
    et_inspector_free(insp);
    return NULL;
}

/* Open the ETRecord of the options, if any, into insp (before the ETDump,
 * as the reference parses it first). */
static int open_etrecord(et_inspector *insp, const et_inspector_options *o, et_error *err)
{
    if (o->etrecord_path && o->etrecord)
        return et_fail(err, ET_ERR_USAGE, "Expecting at most one of etrecord_path or etrecord.");
    if (o->etrecord) {
        insp->etrecord = o->etrecord;
    } else if (o->etrecord_path) {
        et_etrecord_options eo;
        et_etrecord_options_init(&eo);
        eo.path = o->etrecord_path;
        eo.json_budget = o->etrecord_json_budget;
        if (!(insp->etrecord = et_etrecord_open(&eo, err)))
            return -1;
        et_insp_int(insp)->owns_etrecord = true;
    }
    insp->enable_module_hierarchy = o->enable_module_hierarchy;
    const char *ref = o->reference_graph_name ? o->reference_graph_name : ET_EDGE_GRAPH_NAME;
    if (!(insp->reference_graph_name = strdup(ref)) ||
        (o->etrecord_method && !(insp->etrecord_method = strdup(o->etrecord_method))))
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    return 0;
}

bool et_block_reference_case(const et_inspector *insp, const et_block *blk, et_bundled_case *c)
{
    memset(c, 0, sizeof *c);
    if (!insp->bundled || insp->bundled_suite < 0 || blk->reference_case < 0)
        return false;
    et_bundled_suite s;
    et_bundled_suite_at(insp->bundled, (uint32_t)insp->bundled_suite, &s);
    if ((uint32_t)blk->reference_case >= s.test_cases.count)
        return false;
    et_bundled_case_at(insp->bundled, &s, (uint32_t)blk->reference_case, c);
    return true;
}

/* Give each block the test case its bundled_input_index names (spec §7.6),
 * with -1 meaning none - unlike the reference, which indexes its list of
 * reference outputs with -1 and so gives every block the last test case
 * (§5.6 step 4).  Warns about indices that name no test case, a program
 * without a usable suite, and a dump whose runs carry no index at all. */
static int assign_reference_outputs(et_inspector *insp, et_error *err)
{
    insp->bundled_suite = -1;
    for (size_t i = 0; i < insp->n_blocks; i++)
        insp->blocks[i].reference_case = -1;
    const et_bundled *bp = insp->bundled;
    if (!bp)
        return 0;
    const char *path = bp->path ? bp->path : "<bundled program>";
    int rc = 0;
    insp->bundled_suite = et_bundled_reference_suite(bp);
    if (insp->bundled_suite < 0) {
        if (et_bundled_num_suites(bp) == 0)
            rc = et_warnings_add(&insp->warnings,
                                   "BundledProgram %s has no method test suites: no block has "
                                   "a reference output",
                                   path);
        else
            rc = et_warnings_add(&insp->warnings,
                                   "BundledProgram %s has %" PRIu32 " method test suites and "
                                   "none is for method 'forward': no block has a reference "
                                   "output",
                                   path, et_bundled_num_suites(bp));
        return rc == 0 ? 0 : et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    et_bundled_suite s;
    et_bundled_suite_at(bp, (uint32_t)insp->bundled_suite, &s);
    size_t with_index = 0;
    for (size_t i = 0; i < insp->n_blocks && rc == 0; i++) {
        et_block *blk = &insp->blocks[i];
        int32_t bii = blk->bundled_input_index;
        bool has_outputs = blk->n_runs && blk->run_output_count && blk->run_output_count[blk->run_output_run] > 0;
        if (bii == -1 && insp->bundled_test_case >= 0 && has_outputs) {
            bii = insp->bundled_test_case; /* the user's choice for runs without an index */
        } else if (bii == -1) {
            continue;
        }
        with_index++;
        if (bii >= 0 && (uint32_t)bii < s.test_cases.count) {
            blk->reference_case = bii;
            continue;
        }
        rc = et_warnings_add(&insp->warnings,
                               "event_blocks[%zu] ('%.*s'): bundled_input_index %" PRId32
                               " names no test case of method '%.*s' in BundledProgram %s "
                               "(it has %" PRIu32 "): the block has no reference output",
                               i + 1, (int)blk->name.n, blk->name.p ? blk->name.p : "", bii,
                               (int)s.method_name.n, s.method_name.p, path,
                               s.test_cases.count);
    }
    if (rc == 0 && with_index == 0 && insp->n_blocks > 0)
        rc = et_warnings_add(&insp->warnings,
                               "no run of the ETDump carries a bundled_input_index (ETDumpGen "
                               "does not write it: docs/bundled-program.md), so no block has a "
                               "reference output from BundledProgram %s; choose a test case "
                               "with bundled_test_case / --bundled_test_case",
                               path);
    return rc == 0 ? 0 : et_fail(err, ET_ERR_NOMEM, "out of memory");
}

et_inspector *et_inspector_open(const et_inspector_options *o, et_error *err)
{
    int given = (o->etdump_path != NULL) + (o->etdump_data != NULL) +
                (o->profile_results_path != NULL) + (o->profile_results_data != NULL);
    bool legacy = o->profile_results_path || o->profile_results_data;
    if (legacy && (o->etrecord_path || o->etrecord)) {
        et_fail(err, ET_ERR_USAGE,
                "An ETRecord can only be linked to an ETDump, not to a legacy profiler dump.");
        return NULL;
    }
    if (legacy && o->bundled_program_path) {
        et_fail(err, ET_ERR_USAGE,
                "A BundledProgram's reference outputs can only be given to an ETDump's blocks, "
                "not to a legacy profiler dump's.");
        return NULL;
    }
    if (legacy && given == 1)
        return open_legacy(o, err);
    if (!legacy && et_time_scale_check(o->source_time_scale, o->target_time_scale, err) != 0)
        return NULL;
    et_inspector *insp = calloc(1, sizeof(et_inspector_int));
    if (!insp) {
        et_fail(err, ET_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (open_etrecord(insp, o, err) != 0)
        goto fail;
    if (given != 1) {
        et_fail(err, ET_ERR_USAGE,
                legacy ? "Expecting exactly one of etdump_path, etdump_data, profile_results_path "
                         "or profile_results_data to be specified."
                       : "Expecting exactly one of etdump_path or etdump_data to be specified.");
        goto fail;
    }
    insp->source_time_scale = o->source_time_scale;
    insp->target_time_scale = o->target_time_scale;
    insp->scale_factor = et_time_scale_factor(o->source_time_scale, o->target_time_scale);
    const uint8_t *data;
    size_t size;
    if (o->etdump_path) {
        insp->etdump_label = o->etdump_path;
        /* refused from its size before mapping; mapped lazily: pass 1 reads
         * it in order and gives the pages back behind it, so the peak holds
         * a window of the dump, not all of it (docs/performance.md) */
        static const et_map_options fb = {(uint64_t)INT32_MAX,
                                          "larger than a FlatBuffer can be (2 GiB)", false, false};
        if (et_map_file_ex(&insp->etdump_file, o->etdump_path, &fb, err) != 0)
            goto fail;
        data = insp->etdump_file.data;
        size = insp->etdump_file.size;
    } else {
        insp->etdump_label = "<etdump_data>";
        data = o->etdump_data;
        size = o->etdump_size;
    }
    /* a file's mapping: the pages opening reads are given back behind it,
     * unless the caller will read them again */
    et_inspector_int *ii = et_insp_int(insp);
    ii->keep_pages = o->keep_pages;
    ii->threads = o->threads;
    ii->samples_rebuildable = !o->converter;
    if ((insp->etdump_file.data && !insp->etdump_file.in_memory && !ii->keep_pages
             ? et_etdump_open_mapped(&insp->dump, data, size, err)
             : et_etdump_open(&insp->dump, data, size, err)) != 0) {
        et_error_prefix(err, insp->etdump_label);
        goto fail;
    }
    if (o->debug_buffer_path && et_map_file(&insp->debug_buffer, o->debug_buffer_path, err) != 0)
        goto fail;
    if (o->bundled_program_path &&
        !(insp->bundled = et_bundled_open_path(o->bundled_program_path, err)))
        goto fail;
    insp->bundled_test_case = o->bundled_test_case;
    if (o->program_path && !(insp->program = et_program_open_path(o->program_path, err)))
        goto fail;
    if (o->defer_model && o->defer_stats && !o->converter && !insp->etrecord &&
        !insp->bundled) {
        /* the dump verified (and its own warnings given) here; the model
         * when first needed, unless its build may fail */
        bool ends_early;
        ii->model_deferred = true;
        if (et_model_verify_runs(insp, &ends_early, err) != 0)
            goto fail;
        if (et_model_warn_trailing(insp) != 0) {
            et_fail(err, ET_ERR_NOMEM, "out of memory");
            goto fail;
        }
        if (!ends_early) {
            ii->model_pending = ii->stats_pending = true;
            return insp;
        }
    }
    if (et_model_build(insp, o, err) != 0 || assign_reference_outputs(insp, err) != 0 ||
        et_proglink(insp, err) != 0)
        goto fail;
    if (insp->etrecord) {
        et_link_options lo = {.method = insp->etrecord_method,
                              .reference_graph_name = insp->reference_graph_name,
                              .enable_module_hierarchy = o->enable_module_hierarchy};
        if (et_link_etrecord(insp, insp->etrecord, &lo, &insp->warnings, err) != 0)
            goto fail;
    }
    return insp;
fail:
    et_inspector_free(insp);
    return NULL;
}

void et_inspector_free(et_inspector *insp)
{
    if (!insp)
        return;
    et_model_free(insp);
    et_warnings_free(&insp->warnings);
    et_etdump_close(&insp->dump);
    et_legacy_free(insp->legacy);
    et_unmap_file(&insp->debug_buffer);
    et_unmap_file(&insp->etdump_file);
    free(insp->link_nodes);
    free(insp->reference_graph_name);
    free(insp->etrecord_method);
    if (et_insp_int(insp)->owns_etrecord)
        et_etrecord_free(insp->etrecord);
    et_bundled_free(insp->bundled);
    et_program_free(insp->program);
    free(insp->program_method);
    free(insp);
}

/* Build the pending model (defer_model) as et_inspector_open would have,
 * with (stats) or without (the samples and statistics left pending, as
 * defer_stats leaves them) its samples and statistics. */
static int build_pending(et_inspector *insp, bool stats, et_error *err)
{
    et_inspector_int *ii = et_insp_int(insp);
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.defer_stats = !stats;
    size_t nw = insp->warnings.n;
    if (et_model_build(insp, &o, err) != 0 || assign_reference_outputs(insp, err) != 0 ||
        et_proglink(insp, err) != 0) {
        et_model_free(insp);
        et_warnings_truncate(&insp->warnings, nw);
        ii->stats_pending = true; /* as the pending model left it */
        return -1;
    }
    ii->model_pending = false;
    ii->stats_pending = !stats;
    return 0;
}

int et_inspector_ready_blocks(et_inspector *insp, et_error *err)
{
    return et_insp_int(insp)->model_pending ? build_pending(insp, false, err) : 0;
}

bool et_inspector_drop_samples(et_inspector *insp)
{
    et_inspector_int *ii = et_insp_int(insp);
    if (!ii->samples_rebuildable || insp->legacy || ii->model_pending || ii->stats_pending ||
        ii->samples_pending || ii->samples_dropped || !ii->samples)
        return false;
    for (size_t gi = 0; gi < insp->n_blocks; gi++) {
        et_block *blk = &insp->blocks[gi];
        for (size_t e = 0; e < blk->n_events; e++) {
            blk->events[e].perf_data.raw = NULL;
            blk->events[e].start_time = NULL;
        }
    }
    et_big_free(ii->samples, ii->samples_size, ii->samples_mapped);
    ii->samples = NULL;
    ii->samples_size = 0;
    ii->samples_mapped = false;
    ii->samples_dropped = true;
    return true;
}

bool et_inspector_samples_dropped(const et_inspector *insp)
{
    return et_insp_cint(insp)->samples_dropped;
}

/* Whether model `m` has the shape of `insp`'s (blocks, events, samples
 * per event): the second build of one dump gives the first's. */
static bool same_shape(const et_inspector *insp, const et_inspector *m)
{
    if (m->n_blocks != insp->n_blocks)
        return false;
    for (size_t gi = 0; gi < insp->n_blocks; gi++) {
        const et_block *a = &insp->blocks[gi], *b = &m->blocks[gi];
        if (a->n_events != b->n_events)
            return false;
        for (size_t e = 0; e < a->n_events; e++)
            if (a->events[e].perf_data.n != b->events[e].perf_data.n ||
                a->events[e].has_perf_data != b->events[e].has_perf_data)
                return false;
    }
    return true;
}

int et_inspector_ready_samples(et_inspector *insp, et_error *err)
{
    et_inspector_int *ii = et_insp_int(insp);
    if (!ii->samples_dropped)
        return 0;
    /* a second model of the same dump, in a scratch inspector that shares
     * the dump's bytes and verification (never closed: only its model is
     * freed); its samples are moved here, its warnings dropped (the first
     * build gave them) */
    et_inspector_int *s = calloc(1, sizeof *s);
    if (!s)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    s->pub.etdump_file = insp->etdump_file;
    s->pub.debug_buffer = insp->debug_buffer;
    s->pub.etdump_label = insp->etdump_label;
    s->pub.dump = insp->dump;
    s->pub.source_time_scale = insp->source_time_scale;
    s->pub.target_time_scale = insp->target_time_scale;
    s->pub.scale_factor = insp->scale_factor;
    /* the pages the build reads are given back behind it, whatever
     * keep_pages says: the samples are given back by a holder of many
     * models (open_many), which gives their dumps' pages back too */
    s->keep_pages = false;
    s->model_deferred = true; /* the dump's own warnings are not given again */
    et_inspector_options o;
    et_inspector_options_init(&o);
    o.defer_stats = true; /* the samples, not the statistics: et_model_stats
                           * is not called, et_model_fill_samples is */
    int rc = -1;
    if (et_model_build(&s->pub, &o, err) == 0) {
        et_model_fill_samples(&s->pub);
        if (!same_shape(insp, &s->pub) || !s->samples) {
            et_fail(err, ET_ERR_VALUE, "%s: the dump's model changed when built again",
                    insp->etdump_label);
        } else {
            for (size_t gi = 0; gi < insp->n_blocks; gi++)
                for (size_t e = 0; e < insp->blocks[gi].n_events; e++) {
                    et_event *ev = &insp->blocks[gi].events[e];
                    const et_event *from = &s->pub.blocks[gi].events[e];
                    ev->perf_data.raw = from->perf_data.raw;
                    ev->start_time = from->start_time;
                }
            ii->samples = s->samples;
            ii->samples_size = s->samples_size;
            ii->samples_mapped = s->samples_mapped;
            s->samples = NULL; /* moved */
            ii->samples_dropped = false;
            rc = 0;
        }
    }
    if (s->samples) { /* not moved: its events free nothing of the arena */
        et_big_free(s->samples, s->samples_size, s->samples_mapped);
        s->samples = NULL;
    }
    for (size_t gi = 0; gi < s->pub.n_blocks; gi++) /* the arena's, moved or freed */
        for (size_t e = 0; s->pub.blocks[gi].events && e < s->pub.blocks[gi].n_events; e++) {
            s->pub.blocks[gi].events[e].perf_data.raw = NULL;
            s->pub.blocks[gi].events[e].start_time = NULL;
        }
    et_model_free(&s->pub);
    et_warnings_free(&s->pub.warnings);
    free(s);
    return rc;
}

int et_inspector_ready(et_inspector *insp, et_error *err)
{
    et_inspector_int *ii = et_insp_int(insp);
    if (ii->model_pending)
        return build_pending(insp, true, err); /* statistics included */
    if (ii->samples_dropped)
        return et_inspector_ready_samples(insp, err); /* the statistics stay */
    if (!ii->stats_pending)
        return 0;
    if (et_model_stats(insp, err) != 0)
        return -1;
    ii->stats_pending = false;
    return 0;
}

bool et_inspector_model_pending(const et_inspector *insp)
{
    return et_insp_cint(insp)->model_pending;
}

bool et_inspector_stats_pending(const et_inspector *insp)
{
    return et_insp_cint(insp)->stats_pending;
}

bool et_inspector_samples_pending(const et_inspector *insp)
{
    return et_insp_cint(insp)->samples_pending != NULL;
}

bool et_inspector_owns_etrecord(const et_inspector *insp)
{
    return et_insp_cint(insp)->owns_etrecord;
}

void et_inspector_disown_etrecord(et_inspector *insp)
{
    et_insp_int(insp)->owns_etrecord = false;
}

