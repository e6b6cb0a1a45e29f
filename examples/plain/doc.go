// Package plain is five small components written in plain Go, as a team
// writes them (goroutines, channels, sync, time; nothing of this project's),
// each with a concurrency bug of a kind the studies of real Go programs
// count most often, beside its fixed twin:
//
//   - Wallet: an atomicity violation (a balance checked under the lock,
//     then debited under it again: two withdrawals both pass the check);
//   - Ledger: an AB-BA deadlock (two transfers lock their accounts in
//     opposite orders);
//   - Queue: a send on a closed channel (Close closes the channel a Put
//     has decided, outside the lock, to send on);
//   - Fetch: a goroutine leak (the result's sender blocks forever when the
//     timeout wins);
//   - Gather: an order violation (a job's Done before its result is
//     stored: Wait can return with a result missing).
//
// Their tests are ordinary go tests. Under plain go test the buggy ones
// pass nearly every time (the bad interleavings are narrow, and nothing
// notices a goroutine blocked forever), so they run only with DST_DEMO=1;
// dstreplay test -wrap and dstreplay hunt -wrap find each within a few
// schedules (Fetch's leak in every schedule: under the virtual clock the
// timeout always wins the tie), and their fixed twins stay silent:
//
//	DST_DEMO=1 go tool dstreplay hunt -wrap -time 30s ./examples/plain
//	DST_DEMO=1 go tool dstreplay test -wrap ./examples/plain
package plain
