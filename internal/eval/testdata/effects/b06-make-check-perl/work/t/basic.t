use strict;
use warnings;
use Test::More tests => 2;
use Slug;

is(Slug::slug("Hello, World!"), "hello-world", "punctuation");
is(Slug::slug("  a  b "), "a-b", "spaces");
