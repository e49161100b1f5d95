// Package arch holds the tests that keep the module's layout as the
// design says: which package may import which, where bbolt lives, how
// large a package grows, and how long a comment's sentences run.
package arch
