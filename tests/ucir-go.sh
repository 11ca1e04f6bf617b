#!/bin/sh
. "$srcdir/tests/tap.sh"
skip "todo"
