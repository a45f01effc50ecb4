package timing

import (
	"context"
	"regexp"
	"sync"
	"testing"
)

func TestSteps(t *testing.T) {
	Mark(context.Background(), "nowhere") // no record: nothing happens
	ctx, s := Start(context.Background())
	Mark(ctx, "target")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { Mark(ctx, "meanwhile") })
	}
	wg.Wait()
	Mark(ctx, "answer")
	got := s.String()
	if !regexp.MustCompile(`^target \d+\.\dms(, meanwhile \d+\.\dms){4}, answer \d+\.\dms$`).MatchString(got) {
		t.Fatalf("steps = %q", got)
	}
}
