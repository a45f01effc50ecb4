// Package filelock takes and releases an exclusive, advisory lock on an
// open file without waiting: flock(2) on Linux and macOS, LockFileEx on
// Windows. The system drops the lock when the process that holds it dies,
// so a crashed holder never blocks the next one.
package filelock
