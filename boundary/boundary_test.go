package boundary

import (
	"context"
	"errors"
	"testing"
)

func TestG2_AskFailsClosedWithoutDecider(t *testing.T) {
	dec, err := Ask(context.Background(), &Request{Permission: Write, Reason: "outside roots"})
	if dec.Approved || !errors.Is(err, ErrNoDecider) {
		t.Errorf("decision %+v, err %v", dec, err)
	}
	failing := DeciderFunc(func(context.Context, *Request) (Answer, error) {
		return Answer{Approved: true}, errors.New("reviewer crashed")
	})
	dec, err = Ask(WithDecider(context.Background(), failing), &Request{Permission: Exec})
	if dec.Approved || err == nil {
		t.Errorf("a failing decider approved: %+v, %v", dec, err)
	}
	ok := DeciderFunc(func(_ context.Context, r *Request) (Answer, error) {
		return Answer{Approved: r.Permission == Network, By: "test"}, nil
	})
	if dec, err := Ask(WithDecider(context.Background(), ok), &Request{Permission: Network}); !dec.Approved || err != nil {
		t.Errorf("approved request: %+v, %v", dec, err)
	}
}
