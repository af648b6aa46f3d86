// Package git runs the git program for the packages that ask it something
// (the cache's file lists, --affected and [ref] filters, vx watch's
// ignored files): one way to start it and one form of its errors.
//
// git is started with the caller's environment plus GIT_OPTIONAL_LOCKS=0
// (what vx reads never takes the index lock a concurrent git command
// needs) and LC_ALL=C (git's messages in English, which [Error.NotARepo]
// reads). A failure is an [*Error] whose text is one line: "git <args>:"
// and the first line git printed on its standard error (its advice
// follows on later lines), or how the program failed when it printed
// nothing. Finding the program is the caller's part (in the child's PATH,
// exec.LookPath): Run takes its path.
package git
