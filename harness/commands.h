/* harness/commands.h — the subcommands, one file each (cmd_*.c). */
#ifndef FUTEXLAB_COMMANDS_H
#define FUTEXLAB_COMMANDS_H

int fl_cmd_list(int argc, char **argv);
int fl_cmd_run(int argc, char **argv);
int fl_cmd_sweep(int argc, char **argv);
int fl_cmd_exec(int argc, char **argv);
int fl_cmd_compare(int argc, char **argv);
int fl_cmd_report(int argc, char **argv);
int fl_cmd_hunt(int argc, char **argv);
int fl_cmd_store(int argc, char **argv);
int fl_cmd_history(int argc, char **argv);
int fl_cmd_ab(int argc, char **argv);
int fl_cmd_ab_worker(int argc, char **argv);

struct fl_variant;
/* `futexlab hunt` over the registry's designs and `extra` ones, found by
 * name before the registry's (tests/hunt_mutants.c: designs the product
 * does not register). cmd_hunt.c. */
int fl_hunt_main(int argc, char **argv, const struct fl_variant *const *extra, int nextra);

#endif
