/* harness/cmd_hunt.c — `futexlab hunt`: the lost-wakeup hunter over the
 * registered designs (the whole command is hunt_cmd.c). */
#include "harness/commands.h"
#include "harness/hunt_cmd.h"

int fl_cmd_hunt(int argc, char **argv)
{
	return fl_hunt_main(argc, argv, NULL, 0);
}
