package stream

// batchStack is a frame that gives a batch's writer 32 KiB of stack, what storing the batch
// reaches in SQLite when it leads a group commit.
const batchStack = 16 << 10

// presizeBatch grows a batch writer's stack in one step while it is nearly empty. Each batch
// runs on a goroutine of its own (its timer's), which starts with a small stack that the
// runtime copies at each doubling, deep in SQLite with dozens of frames to move; a frame that
// only fits in the size the goroutine reaches anyway makes the runtime double the stack once,
// to that size. It returns a byte of its frame, chosen by i, so that the compiler keeps the
// frame.
//
// A stream's writer is left alone: an idle stream would hold the larger stack for as long as
// it stays open.
//
//go:noinline
func presizeBatch(i int) byte {
	var room [batchStack]byte
	room[i%batchStack] = 1
	return room[(i+1)%batchStack]
}
