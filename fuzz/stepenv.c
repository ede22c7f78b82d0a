/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stepenv.c: what slurmstepd's part of the plugin reads, as root, from the
 * environment the user's srun passes to the step: the plan's
 * PMI_process_mapping (TOPOMAP_PMI_MAPPING) checked against
 * SLURM_TASKS_PER_NODE, as pmi_mapping_remote in spank/topomap.c does;
 * each task's NIC and slot (TOPOMAP_NICS, read as task_nics does); and
 * SLURM_JOB_CPUS_PER_NODE's reader, which srun's part uses.
 *
 * Input: two bytes of task count (1..4096), one of node count (1..256, at
 * most the tasks), then SLURM_TASKS_PER_NODE, a newline, the mapping,
 * which is also read as TOPOMAP_NICS for the last task.
 */
#include "config.h"

#include "fuzz/fuzz.h"
#include "lib/layout.h"
#include "lib/railmap.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    int ntasks, nnodes, *node, *counts;
    char *text, *nl;
    tm_error_t e;

    if (size < 3)
        return 0;
    ntasks = 1 + ((data[0] << 8 | data[1]) % 4096);
    nnodes = 1 + data[2] % 256;
    if (nnodes > ntasks)
        nnodes = ntasks;
    text = fuzz_text (data + 3, size - 3);
    if (!(nl = strchr (text, '\n'))) {
        free (text);
        return 0;
    }
    *nl = '\0';
    node = malloc ((size_t)ntasks * sizeof (*node));
    counts = malloc ((size_t)nnodes * sizeof (*counts));
    if (!node || !counts)
        abort ();
    if (layout_parse_cpus (text, nnodes, counts, &e) == 0 &&
        layout_pmi_mapping_parse (nl + 1, ntasks, node, &e) == 0 &&
        layout_check_ranks (nnodes, counts, ntasks, node, NULL, &e) == 0) {
        /* A mapping that passes is one the plugin hands to PMI: written
         * again in the fewest blocks, it must read as the same ranks. */
        char again[LAYOUT_PMI_MAPPING_MAX + 1];
        int *node2 = malloc ((size_t)ntasks * sizeof (*node2));

        if (!node2)
            abort ();
        if (layout_pmi_mapping (ntasks, node, again, sizeof (again), &e) == 0 &&
            (layout_pmi_mapping_parse (again, ntasks, node2, &e) < 0 ||
             memcmp (node, node2, (size_t)ntasks * sizeof (*node)) != 0))
            abort ();
        free (node2);
    }
    /* A NIC taken is one task_nics may name in the task's environment. */
    railmap_nic_t nic;
    int slot, *cpu, ncpus;

    if (railmap_env_nic (nl + 1, ntasks - 1, &nic, &slot, &cpu, &ncpus, &e) == 0) {
        if (slot < 0 || slot >= SLOTS_MAX_DEVICES || (!nic.name[0] && !nic.netdev[0]) ||
            (nic.name[0] && !slots_name_ok (nic.name)) ||
            (nic.netdev[0] && !slots_name_ok (nic.netdev)) || ncpus < 0 || (ncpus > 0) != !!cpu)
            abort ();
        /* CPUs task_bind may set: ascending, below SLOTS_MAX_CPUS */
        for (int c = 0; c < ncpus; c++)
            if (cpu[c] < 0 || cpu[c] >= SLOTS_MAX_CPUS || (c > 0 && cpu[c] <= cpu[c - 1]))
                abort ();
        free (cpu);
    }
    free (counts);
    free (node);
    free (text);
    return 0;
}
