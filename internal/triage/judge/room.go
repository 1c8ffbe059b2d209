package judge

import (
	"sync"

	"github.com/wardenhq/warden/action"
)

// room is what judging one action needs and nothing keeps after the
// verdict: the action's copy, the judgement, its first script, and room
// for that script's commands and their words. JudgeIn takes a room from
// rooms and puts it back zeroed, so that a typical action allocates
// about a kilobyte less for the collector to reclaim: on a busy machine
// the collector's cycles, not the judging, were most of what the first
// pass cost over 7b181fc (docs/performance.md).
//
// Nothing of a room may outlive the call that took it: the verdict holds
// only strings, the trail and the remembered lookups only strings and
// maps of their own, and every slice handed out of a room is capped at
// its length, so an append copies rather than writing into the room.
type room struct {
	a       action.Action
	v       Judgement
	s       Script
	allowed [4]string // Judgement.allowed: Add keeps four reasons at most
	notes   [2]string // Judgement.notes: note keeps two at most
	cmds    [8]Command
	args    [48]string
	known   [48]bool
	used    int  // words of args and known handed out
	ncmds   int  // commands of cmds handed out
	sTaken  bool // s is handed out
}

// rooms holds the rooms not in use.
var rooms = sync.Pool{New: func() any { return new(room) }}

// getRoom returns a zeroed room.
func getRoom() *room { return rooms.Get().(*room) }

// putRoom zeroes r and gives it back.
func putRoom(r *room) {
	r.reset()
	rooms.Put(r)
}

// reset zeroes r, dropping every reference it holds. Only the commands
// and words handed out are cleared: the rest were never written
// (TestG14_RoomsComeBackEmpty).
func (r *room) reset() {
	r.a, r.v, r.s = action.Action{}, Judgement{}, Script{}
	r.allowed, r.notes = [4]string{}, [2]string{}
	clear(r.cmds[:r.ncmds])
	clear(r.args[:r.used])
	clear(r.known[:r.used])
	r.used, r.ncmds, r.sTaken = 0, 0, false
}

// newScript returns a zero Script for v: the room's when v has one and
// it is not handed out yet.
func (v *Judgement) newScript() *Script {
	if r := v.room; r != nil && !r.sTaken {
		r.sTaken = true
		return &r.s
	}
	return new(Script)
}

// commands returns n zero Commands for s: the room's when s is the room's
// script and they fit.
func (s *Script) commands(n int) []Command {
	if r := s.V.room; r != nil && s == &r.s && r.ncmds == 0 && n > 0 && n <= len(r.cmds) {
		r.ncmds = n
		return r.cmds[:n:n]
	}
	return make([]Command, n)
}

// words returns room for the n expanded words of a command of s and
// whether each is known: the room's when s is the room's script and they
// fit. Both slices are capped at n.
func (s *Script) words(n int) ([]string, []bool) {
	if r := s.V.room; r != nil && s == &r.s && r.used+n <= len(r.args) {
		i := r.used
		r.used += n
		return r.args[i : i+n : i+n], r.known[i : i+n : i+n]
	}
	return make([]string, n), make([]bool, n)
}
