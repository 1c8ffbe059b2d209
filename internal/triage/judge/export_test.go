package judge

import (
	"reflect"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
)

// JudgeInNewRoom judges a as JudgeIn does, in a room never used before,
// and reports whether resetting the room afterwards left it all zero.
func JudgeInNewRoom(k *Knowledge, a action.Action, request string, transcript []vocab.Turn) (Verdict, bool) {
	r := new(room)
	r.a = a
	v := k.judgeIn(r, request, transcript, nil)
	r.reset()
	return v, reflect.ValueOf(r).Elem().IsZero()
}
