#!/bin/sh
. "$srcdir/tests/tap.sh"
done_testing
