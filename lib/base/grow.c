/*
 * Growable arrays.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

int
tp_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	void *p;
	size_t c = *cap;

	if (need <= c)
		return 0;
	if (elem == 0 || need > SIZE_MAX / elem)
		return -1;
	c = c < 16 ? 16 : c;
	while (c < need)
		c = c > SIZE_MAX / 3 ? need : c + c / 2;
	if (c > SIZE_MAX / elem)
		c = need;
	memcpy(&p, pp, sizeof p);
	if ((p = realloc(p, c * elem)) == NULL)
		return -1;
	memcpy(pp, &p, sizeof p);
	*cap = c;
	return 0;
}
