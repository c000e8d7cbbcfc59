/* harness/commands.h — the subcommands, one file each (cmd_*.c). */
#ifndef FUTEXLAB_COMMANDS_H
#define FUTEXLAB_COMMANDS_H

int fl_cmd_list(int argc, char **argv);
int fl_cmd_run(int argc, char **argv);
int fl_cmd_sweep(int argc, char **argv);
int fl_cmd_exec(int argc, char **argv);
int fl_cmd_compare(int argc, char **argv);
int fl_cmd_hunt(int argc, char **argv);

#endif
