/*
 * txt2wtf: the tracepipe text stream to a Web Tracing Framework trace.
 * All of it is in the format's registration (formats/wtf/wtf-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("wtf", TP_ENCODE, argc, argv);
}
