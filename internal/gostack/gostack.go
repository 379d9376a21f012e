// Package gostack grows a fresh goroutine's stack in one step.
//
// A goroutine starts with a small stack, and the runtime doubles it, copying every frame, each
// time a call needs more. A goroutine that serves one request or one call and then ends, and
// that goes deep (JSON decoding, middleware, SQLite), pays for two or three such copies every
// time, each moving dozens of frames. Calling one of these functions first, while the stack is
// nearly empty, makes the runtime double it to that size at once, with nothing to move.
//
// Each function's frame is half the size it names: the runtime doubles the stack until the
// frame fits. Grow only what a goroutine reaches anyway: a goroutine that then sits idle (an
// open stream) would hold the larger stack for as long as it lives.
package gostack

// To8K grows the calling goroutine's stack to 8 KiB. It returns a byte of its frame, chosen
// by seed (any number), so that the compiler keeps the frame.
//
//go:noinline
func To8K(seed int) byte {
	var room [4 << 10]byte
	return touch(room[:], seed)
}

// To16K grows the calling goroutine's stack to 16 KiB; see [To8K].
//
//go:noinline
func To16K(seed int) byte {
	var room [8 << 10]byte
	return touch(room[:], seed)
}

// To32K grows the calling goroutine's stack to 32 KiB; see [To8K].
//
//go:noinline
func To32K(seed int) byte {
	var room [16 << 10]byte
	return touch(room[:], seed)
}

// touch writes and reads room at places seed picks, which the compiler cannot drop.
func touch(room []byte, seed int) byte {
	seed &= len(room) - 1
	room[seed] = 1
	return room[(seed+1)&(len(room)-1)]
}
