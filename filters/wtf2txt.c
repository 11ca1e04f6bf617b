/*
 * wtf2txt: Web Tracing Framework trace (.wtf-trace) to the tracepipe text
 * stream.
 * All of it is in the format's registration (formats/wtf/wtf-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("wtf", TP_DECODE, argc, argv);
}
