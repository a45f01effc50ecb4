package browser

import (
	"context"
	"encoding/base64"
	"fmt"
)

// Frame is one screencast frame of a tab: a JPEG of its viewport, and the
// size in CSS pixels that the image shows (to scale a viewer's pointer
// back to the page).
type Frame struct {
	JPEG []byte
	// Width and Height are the viewport's size in CSS pixels.
	Width, Height float64
}

// Screencast streams the tab's frames to each until ctx ends or the tab
// closes: Page.startScreencast, one frame at a time — Chromium sends the
// next frame only once each has returned and the frame is acknowledged,
// so a slow viewer slows the stream instead of queueing it. Only while a
// screencast runs does Chromium encode frames.
func (p *Page) Screencast(ctx context.Context, maxWidth, maxHeight int, each func(Frame)) error {
	l := p.sess.Listen("Page.screencastFrame")
	defer l.Close()
	params := map[string]any{"format": "jpeg", "quality": 70, "maxWidth": maxWidth, "maxHeight": maxHeight}
	// Only the front tab of a window is drawn (see inFront): the tab
	// watched comes to the front, until a capture or a new tab takes it.
	if done, err := p.inFront(ctx); err == nil {
		done()
	}
	if err := p.sess.Call(ctx, "Page.startScreencast", params, nil); err != nil {
		return fmt.Errorf("starting the live view of the tab: %w", err)
	}
	defer func() {
		p.cleanup(ctx, p.sess, "Page.stopScreencast", nil)
	}()
	for {
		ev, ok := l.Next(ctx)
		if !ok {
			if p.Closed() {
				return ErrClosedTab
			}
			return context.Cause(ctx)
		}
		var f struct {
			Data     string `json:"data"`
			Metadata struct {
				DeviceWidth  float64 `json:"deviceWidth"`
				DeviceHeight float64 `json:"deviceHeight"`
			} `json:"metadata"`
			SessionID int64 `json:"sessionId"`
		}
		if err := ev.Decode(&f); err != nil {
			continue
		}
		if img, err := base64.StdEncoding.DecodeString(f.Data); err == nil {
			each(Frame{JPEG: img, Width: f.Metadata.DeviceWidth, Height: f.Metadata.DeviceHeight})
		}
		if err := p.sess.Call(ctx, "Page.screencastFrameAck", map[string]any{"sessionId": f.SessionID}, nil); err != nil {
			if p.Closed() {
				return ErrClosedTab
			}
			return context.Cause(ctx)
		}
	}
}
