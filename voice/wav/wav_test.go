package wav_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/voice/wav"
)

// kiosk is the format of the Rust hub kiosk's recordings.
var kiosk = wav.Format{Encoding: wav.PCM, Channels: 1, SampleRate: 16000, BitsPerSample: 16}

var limits = wav.Limits{MaxBytes: 4 << 20, MaxDuration: 30 * time.Second}

// tone is a WAV of a 440 Hz tone in f, d long.
func tone(f wav.Format, d time.Duration) []byte {
	frames := int(int64(f.SampleRate) * int64(d) / int64(time.Second))
	var data bytes.Buffer
	for i := range frames {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(f.SampleRate)))
		for range f.Channels {
			_ = binary.Write(&data, binary.LittleEndian, v)
		}
	}
	return append(wav.Header(f, uint32(data.Len())), data.Bytes()...)
}

// counting counts the bytes read from it.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func problem(t *testing.T, err error, want wav.Problem) *wav.Error {
	t.Helper()
	var e *wav.Error
	if !errors.As(err, &e) || e.Problem != want {
		t.Fatalf("err = %v; want problem %d", err, want)
	}
	return e
}

func TestReadKioskRecording(t *testing.T) {
	file := tone(kiosk, 1500*time.Millisecond)
	rec, err := wav.Read(bytes.NewReader(file), limits)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Format != kiosk || rec.Duration != 1500*time.Millisecond || !bytes.Equal(rec.Bytes, file) {
		t.Errorf("read %+v, %v, %d bytes; want %+v, 1.5s, %d bytes", rec.Format, rec.Duration, len(rec.Bytes), kiosk, len(file))
	}
}

// TestReadKeepsOtherChunks reads a WAV with metadata before its format
// and an extensible fmt chunk, as some recorders write them.
func TestReadKeepsOtherChunks(t *testing.T) {
	data := make([]byte, 32000) // a second of silence
	var b bytes.Buffer
	b.WriteString("RIFF\x00\x00\x00\x00WAVE")
	b.WriteString("LIST")
	_ = binary.Write(&b, binary.LittleEndian, uint32(5))
	b.WriteString("INFOx\x00") // odd: padded
	b.WriteString("fmt ")
	fmtChunk := make([]byte, 40)
	le := binary.LittleEndian
	le.PutUint16(fmtChunk[0:], 0xFFFE)
	le.PutUint16(fmtChunk[2:], 1)
	le.PutUint32(fmtChunk[4:], 16000)
	le.PutUint32(fmtChunk[8:], 32000)
	le.PutUint16(fmtChunk[12:], 2)
	le.PutUint16(fmtChunk[14:], 16)
	le.PutUint16(fmtChunk[24:], wav.PCM)
	_ = binary.Write(&b, le, uint32(len(fmtChunk)))
	b.Write(fmtChunk)
	b.WriteString("data")
	_ = binary.Write(&b, le, uint32(len(data)))
	b.Write(data)
	rec, err := wav.Read(bytes.NewReader(b.Bytes()), limits)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Format != kiosk || rec.Duration != time.Second || len(rec.Bytes) != b.Len() {
		t.Errorf("read %+v, %v, %d bytes", rec.Format, rec.Duration, len(rec.Bytes))
	}
}

func TestReadRefusesWhatIsNotAWAV(t *testing.T) {
	compressed := tone(kiosk, time.Second)
	binary.LittleEndian.PutUint16(compressed[20:], 0x55) // MPEG layer 3
	stereo8k := tone(wav.Format{Encoding: wav.PCM, Channels: 2, SampleRate: 8000, BitsPerSample: 16}, time.Second)
	dataFirst := append([]byte("RIFF\x00\x00\x00\x00WAVEdata\x04\x00\x00\x00"), 0, 0, 0, 0)
	for _, tc := range []struct {
		name string
		file []byte
		want wav.Problem
		says string
	}{
		{"nothing", nil, wav.NotWAV, "ends before its RIFF header"},
		{"binary garbage", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"), wav.NotWAV, "RIFF/WAVE"},
		{"an mp3", append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), make([]byte, 400)...), wav.NotWAV, "RIFF/WAVE"},
		{"a header alone", []byte("RIFF\x24\x00\x00\x00WAVE"), wav.NotWAV, "data chunk"},
		{"data before fmt", dataFirst, wav.NotWAV, "before its format"},
		{"compressed", compressed, wav.Unsupported, "compressed (format 0x0055)"},
		{"no audio", wav.Header(kiosk, 0), wav.Empty, "no audio"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wav.Read(bytes.NewReader(tc.file), limits)
			if e := problem(t, err, tc.want); !strings.Contains(e.Error(), tc.says) {
				t.Errorf("says %q; want it to mention %q", e, tc.says)
			}
		})
	}
	if _, err := wav.Read(bytes.NewReader(stereo8k), limits); err != nil {
		t.Errorf("a stereo 8 kHz PCM WAV: %v", err)
	}
}

// TestReadRefusesTooLongBeforeReadingIt: a ten-minute recording is
// refused by its header, after 44 bytes of it.
func TestReadRefusesTooLongBeforeReadingIt(t *testing.T) {
	size := uint32(10 * 60 * 32000)
	body := &counting{r: io.MultiReader(bytes.NewReader(wav.Header(kiosk, size)), zeros{})}
	_, err := wav.Read(body, limits)
	e := problem(t, err, wav.TooLong)
	if e.Duration != 10*time.Minute || !strings.Contains(e.Error(), "10m0s long; the hub takes at most 30s") {
		t.Errorf("err = %v (%v)", e, e.Duration)
	}
	if body.n > 4096 {
		t.Errorf("read %d bytes of a recording refused by its header", body.n)
	}
}

// TestReadMeasuresStreamedAudio: a recording written as it is recorded
// says no size; its audio is measured as read, and bounded.
func TestReadMeasuresStreamedAudio(t *testing.T) {
	long := append(wav.Header(kiosk, 0xFFFFFFFF), make([]byte, 31*32000)...)
	problem(t, wavRead(long, limits), wav.TooLong)

	short := append(wav.Header(kiosk, 0xFFFFFFFF), make([]byte, 3*32000)...)
	rec, err := wav.Read(bytes.NewReader(short), limits)
	if err != nil || rec.Duration != 3*time.Second {
		t.Errorf("a streamed 3 s recording: %v, %v", rec.Duration, err)
	}

	// Without an end, reading stops at the byte limit.
	endless := &counting{r: io.MultiReader(bytes.NewReader(wav.Header(kiosk, 0xFFFFFFFF)), zeros{})}
	small := wav.Limits{MaxBytes: 64 << 10, MaxDuration: time.Hour}
	_, err = wav.Read(endless, small)
	problem(t, err, wav.TooLarge)
	if endless.n > small.MaxBytes+1 {
		t.Errorf("read %d bytes of an endless recording; the limit is %d", endless.n, small.MaxBytes)
	}
}

func TestReadRefusesTooLarge(t *testing.T) {
	file := tone(kiosk, 2*time.Second)
	e := problem(t, wavRead(file, wav.Limits{MaxBytes: 32000, MaxDuration: time.Minute}), wav.TooLarge)
	if !strings.Contains(e.Error(), "larger than 32000 bytes") {
		t.Errorf("err = %v", e)
	}
}

// TestReadPassesReadErrors: an error of the body (a request body over
// the server's limit, a client gone) is returned as it is.
func TestReadPassesReadErrors(t *testing.T) {
	gone := errors.New("connection reset")
	_, err := wav.Read(io.MultiReader(bytes.NewReader(wav.Header(kiosk, 64000)), failing{gone}), limits)
	if !errors.Is(err, gone) {
		t.Errorf("err = %v; want %v", err, gone)
	}
}

func wavRead(file []byte, lim wav.Limits) error {
	_, err := wav.Read(bytes.NewReader(file), lim)
	return err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }
