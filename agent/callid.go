package agent

import (
	"strconv"

	"github.com/wardenhq/warden/chat"
)

// ContinueCallIDs tells a resumed run what its transcript already holds:
// the number of turns and the call ids used, which no call of the run may
// reuse (issue 10: call ids stay unique within one transcript).
func (r *Run) ContinueCallIDs(turns int, ids []string) {
	r.idMu.Lock()
	defer r.idMu.Unlock()
	r.turnNo = turns
	if r.callIDs == nil {
		r.callIDs = map[string]bool{}
	}
	for _, id := range ids {
		r.callIDs[id] = true
	}
}

// startTurn counts a turn, for the suffix of renamed call ids.
func (r *Run) startTurn() {
	r.idMu.Lock()
	r.turnNo++
	r.idMu.Unlock()
}

// uniqueCallIDs returns msg with every tool call whose id an earlier
// message of the run (or of its transcript, for a resumed run) used given a
// new one: the id, "_t" and the turn's number (then "_2", "_3", … should
// that be taken too). Scripted models number their calls per script, so a
// resumed turn would otherwise repeat the first turn's ids. The model sees
// the ids as renamed, consistently in its call and its result. Calls of one
// message that share an id keep sharing it.
func (r *Run) uniqueCallIDs(msg chat.Message) chat.Message {
	if len(msg.ToolCalls) == 0 {
		return msg
	}
	r.idMu.Lock()
	defer r.idMu.Unlock()
	if r.callIDs == nil {
		r.callIDs = map[string]bool{}
	}
	calls := append(msg.ToolCalls[:0:0], msg.ToolCalls...)
	renamed := map[string]string{}
	for i, c := range calls {
		if c.ID == "" {
			continue
		}
		if nid, ok := renamed[c.ID]; ok {
			calls[i].ID = nid
			continue
		}
		nid := c.ID
		if r.callIDs[nid] {
			nid = c.ID + "_t" + strconv.Itoa(r.turnNo)
			for n := 2; r.callIDs[nid]; n++ {
				nid = c.ID + "_t" + strconv.Itoa(r.turnNo) + "_" + strconv.Itoa(n)
			}
		}
		renamed[c.ID] = nid
		calls[i].ID = nid
	}
	for _, nid := range renamed {
		r.callIDs[nid] = true
	}
	msg.ToolCalls = calls
	return msg
}
