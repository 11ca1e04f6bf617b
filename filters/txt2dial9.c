/*
 * txt2dial9: the tracepipe text stream to dial9-trace-format.
 * All of it is in the format's registration (formats/dial9/dial9-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("dial9", TP_ENCODE, argc, argv);
}
