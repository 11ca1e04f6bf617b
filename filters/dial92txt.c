/*
 * dial92txt: dial9-trace-format (tokio runtime telemetry) to the
 * tracepipe text stream.
 * All of it is in the format's registration (formats/dial9/dial9-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("dial9", TP_DECODE, argc, argv);
}
