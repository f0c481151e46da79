/*
 * A stand-in for pyxis (NVIDIA's SPANK plugin that runs srun tasks in
 * containers imported by enroot), for mlb's Slurm tests only: enroot and a
 * container runtime cannot run on the test machines. It is loaded by the
 * test cluster's real srun and slurmd (plugstack.conf) and registers
 * pyxis's options, --container-image, --container-mounts and
 * --container-name, so that `srun --help` lists them and srun passes their
 * values to every task of a step, as with pyxis. It runs no container: each
 * task runs on its node as it is (the image's files are the host's). It
 * records, for each task, what pyxis would have been asked, one line in the
 * file named by its `log=` argument:
 *
 *   node=N job=J step=S task=T image=I mounts=M name=C container=imported|reused
 *
 * `container` is `imported` for the first task of a node that names a
 * container, `reused` afterwards (pyxis imports a named container's image
 * once per node). The options are registered in srun only when the
 * environment has MLB_PYXIS_STANDIN=1, so that the cluster's other tests
 * see a srun without pyxis.
 */
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

SPANK_PLUGIN(pyxis_standin, 1);

enum { IMAGE, MOUNTS, NAME, OPTIONS };
static char *values[OPTIONS];

static int take(int val, const char *optarg, int remote) {
    (void)remote;
    if (val < 0 || val >= OPTIONS || !optarg)
        return -1;
    free(values[val]);
    values[val] = strdup(optarg);
    return 0;
}

static struct spank_option options[] = {
    {"container-image", "[USER@][REGISTRY#]IMAGE[:TAG]", "[pyxis stand-in] the image of the container", 1, IMAGE, take},
    {"container-mounts", "SRC:DST[:FLAGS][,...]", "[pyxis stand-in] bind mounts", 1, MOUNTS, take},
    {"container-name", "NAME", "[pyxis stand-in] name of the container, kept on the node", 1, NAME, take},
    SPANK_OPTIONS_TABLE_END,
};

int slurm_spank_init(spank_t sp, int ac, char **av) {
    (void)ac;
    (void)av;
    spank_context_t ctx = spank_context();
    const char *on = getenv("MLB_PYXIS_STANDIN");
    if (ctx == S_CTX_REMOTE || (ctx == S_CTX_LOCAL && on && strcmp(on, "1") == 0)) {
        for (int i = 0; i < OPTIONS; i++)
            if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS)
                return -1;
    }
    return 0;
}

/* The value of the plugin argument `key=`, or NULL. */
static const char *argument(int ac, char **av, const char *key) {
    size_t n = strlen(key);
    for (int i = 0; i < ac; i++)
        if (strncmp(av[i], key, n) == 0 && av[i][n] == '=')
            return av[i] + n + 1;
    return NULL;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
    const char *log = argument(ac, av, "log");
    if (!values[IMAGE] || !log)
        return 0;
    char node[256] = "?", task[32] = "?", marker[4096];
    uint32_t job = 0, step = 0;
    spank_getenv(sp, "SLURMD_NODENAME", node, sizeof node);
    spank_getenv(sp, "SLURM_PROCID", task, sizeof task);
    spank_get_item(sp, S_JOB_ID, &job);
    spank_get_item(sp, S_JOB_STEPID, &step);
    FILE *f = fopen(log, "a");
    if (!f) {
        slurm_error("pyxis stand-in: cannot open %s", log);
        return -1;
    }
    flock(fileno(f), LOCK_EX);
    /* One marker file per (node, container name): its existence is the
       container kept on the node. Checked and made under the log's lock. */
    const char *state = "imported";
    if (values[NAME]) {
        snprintf(marker, sizeof marker, "%s.%s.%s", log, node, values[NAME]);
        struct stat st;
        if (stat(marker, &st) == 0) {
            state = "reused";
        } else {
            FILE *m = fopen(marker, "w");
            if (m)
                fclose(m);
        }
    }
    fprintf(f, "node=%s job=%u step=%u task=%s image=%s mounts=%s name=%s container=%s\n", node, job, step, task,
            values[IMAGE], values[MOUNTS] ? values[MOUNTS] : "", values[NAME] ? values[NAME] : "", state);
    fclose(f);
    return 0;
}
