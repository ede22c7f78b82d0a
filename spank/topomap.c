/* topomap.so: the SPANK plugin.  Glue only: every decision lives in lib/.
 *
 * This is the plugin's skeleton: it identifies itself (srun -v shows it)
 * and registers no option yet.  The --topo-map and --topo-profile options
 * arrive with the plugin issue.
 */
#include "config.h"

#include <slurm/spank.h>

SPANK_PLUGIN (topomap, 1);

int slurm_spank_local_user_init (spank_t sp, int ac, char **av)
{
    /* srun applies -v after slurm_spank_init_post_opt: this is the first
     * local callback whose verbose messages the user can see. */
    slurm_verbose ("topomap: %s loaded", PACKAGE_STRING);
    return 0;
}
