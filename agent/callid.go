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

// startTurn counts a turn: the ids of the turn before become earlier
// turns' ids.
func (r *Run) startTurn() {
	r.idMu.Lock()
	defer r.idMu.Unlock()
	r.turnNo++
	if r.callIDs == nil {
		r.callIDs = map[string]bool{}
	}
	for id := range r.turnIDs {
		r.callIDs[id] = true
	}
	r.turnIDs, r.renamed = nil, nil
}

// uniqueCallIDs returns msg with every tool call whose id an earlier turn
// of the run (or of its transcript, for a resumed run) used given a new
// one: the id, "_t" and the turn's number (then "_2", "_3", … should that
// be taken too). Scripted models number their calls per script, so a
// resumed turn would otherwise repeat the first turn's ids. The model sees
// the ids as renamed, consistently in its call and its result. Within one
// turn an id is renamed the same way each time, so calls that share an id
// there keep sharing it, as they would in a run never resumed.
func (r *Run) uniqueCallIDs(msg chat.Message) chat.Message {
	if len(msg.ToolCalls) == 0 {
		return msg
	}
	r.idMu.Lock()
	defer r.idMu.Unlock()
	if r.turnIDs == nil {
		r.turnIDs, r.renamed = map[string]bool{}, map[string]string{}
	}
	taken := func(id string) bool { return r.callIDs[id] || r.turnIDs[id] }
	calls := append(msg.ToolCalls[:0:0], msg.ToolCalls...)
	for i, c := range calls {
		if c.ID == "" {
			continue
		}
		nid, ok := r.renamed[c.ID]
		if !ok {
			nid = c.ID
			if r.callIDs[nid] {
				base := c.ID + "_t" + strconv.Itoa(r.turnNo)
				nid = base
				for n := 2; taken(nid); n++ {
					nid = base + "_" + strconv.Itoa(n)
				}
			}
			r.renamed[c.ID] = nid
		}
		r.turnIDs[nid] = true
		calls[i].ID = nid
	}
	msg.ToolCalls = calls
	return msg
}
