// Package wav reads the recordings the voice seam takes: WAV files of
// PCM audio, such as the 16 kHz mono recordings of the Rust hub's kiosk.
// Read checks the RIFF/WAVE header and the audio's format before it reads
// the audio, and bounds both the bytes and the duration, so a recording
// that is not a WAV, or is too long, is refused before the rest of it is
// read. Header writes the header of a PCM WAV.
package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Encodings of the audio in a WAV file (the fmt chunk's format tag).
const (
	PCM        = 1      // integer samples
	Float      = 3      // IEEE float samples
	extensible = 0xFFFE // WAVE_FORMAT_EXTENSIBLE: the encoding is in the sub-format
)

// Format is the audio's format as the fmt chunk gives it.
type Format struct {
	Encoding      uint16 // PCM or Float
	Channels      int
	SampleRate    int // samples per second, per channel
	BitsPerSample int
}

// bytesPerSecond is how many bytes of audio one second takes.
func (f Format) bytesPerSecond() int64 {
	return int64(f.SampleRate) * int64(f.Channels) * int64(f.BitsPerSample/8)
}

// duration is how long size bytes of audio play.
func (f Format) duration(size int64) time.Duration {
	return time.Duration(size * int64(time.Second) / f.bytesPerSecond())
}

// Limits bound a recording.
type Limits struct {
	MaxBytes    int64         // the whole file
	MaxDuration time.Duration // the audio
}

// Recording is a WAV file as read: its format, how long its audio plays,
// and the file's bytes, header and all.
type Recording struct {
	Format   Format
	Duration time.Duration
	Bytes    []byte
}

// Problem is why a recording is refused.
type Problem int

// The problems.
const (
	NotWAV      Problem = iota + 1 // not a RIFF/WAVE file, or a broken one
	Unsupported                    // a WAV, but not of PCM audio the hub takes
	TooLarge                       // more bytes than Limits.MaxBytes
	TooLong                        // audio longer than Limits.MaxDuration
	Empty                          // no audio at all
)

// Error is a recording refused, and why.
type Error struct {
	Problem Problem
	// Detail says what is wrong (NotWAV, Unsupported).
	Detail string
	// Duration and Limit are the audio's length and the longest taken
	// (TooLong); Size and MaxBytes the file's (TooLarge; Size is the
	// bytes read when the file does not say).
	Duration, Limit time.Duration
	Size, MaxBytes  int64
}

func (e *Error) Error() string {
	switch e.Problem {
	case NotWAV:
		return "the recording is not a WAV file: " + e.Detail
	case Unsupported:
		return "the recording is a WAV file the hub does not take: " + e.Detail + "; send PCM audio (16-bit, 16 kHz, mono is best)"
	case TooLarge:
		return fmt.Sprintf("the recording is larger than %d bytes, the most the hub takes", e.MaxBytes)
	case TooLong:
		return fmt.Sprintf("the recording is %s long; the hub takes at most %s", e.Duration.Round(100*time.Millisecond), e.Limit)
	}
	return "the recording holds no audio"
}

// Bounds of the chunks before the audio.
const (
	maxFormatChunk = 1024    // fmt: 16, 18 or 40 bytes
	maxOtherChunk  = 1 << 20 // LIST, fact, …: metadata
	streamedSize   = 0xFFFFFFFF
)

// Read reads a WAV file from r, whole, checking as it goes: the RIFF/WAVE
// header, then a fmt chunk of PCM (or float) audio, then the data chunk,
// whose declared size is checked against lim before any audio is read.
// It reads at most lim.MaxBytes+1 bytes of r. A refused recording is an
// *Error; an error of r is returned as it is.
func Read(r io.Reader, lim Limits) (Recording, error) {
	var file bytes.Buffer
	rd := &reader{r: io.TeeReader(io.LimitReader(r, lim.MaxBytes+1), &file), file: &file, max: lim.MaxBytes}
	if err := rd.riffHeader(); err != nil {
		return Recording{}, err
	}
	f, err := rd.chunksToData()
	if err != nil {
		return Recording{}, err
	}
	rec, err := rd.audio(f, lim)
	if err != nil {
		return Recording{}, err
	}
	rec.Bytes = file.Bytes()
	return rec, nil
}

// reader reads a WAV file, keeping what it read in file.
type reader struct {
	r        io.Reader
	file     *bytes.Buffer
	max      int64
	format   *Format
	declared uint32 // the data chunk's size, as the header says it
}

// read fills p, or says why it cannot: the file too large, or too short
// to be a WAV (what names the part that is missing).
func (rd *reader) read(p []byte, what string) error {
	_, err := io.ReadFull(rd.r, p)
	switch {
	case int64(rd.file.Len()) > rd.max:
		return &Error{Problem: TooLarge, Size: int64(rd.file.Len()), MaxBytes: rd.max}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Problem: NotWAV, Detail: "it ends before " + what}
	}
	return err
}

func (rd *reader) riffHeader() error {
	var h [12]byte
	if err := rd.read(h[:], "its RIFF header"); err != nil {
		return err
	}
	if string(h[0:4]) != "RIFF" || string(h[8:12]) != "WAVE" {
		return &Error{Problem: NotWAV, Detail: "it does not begin with a RIFF/WAVE header"}
	}
	return nil
}

// chunksToData reads the chunks up to the data chunk's header: the
// format, and any others (metadata), which are kept but not read.
func (rd *reader) chunksToData() (Format, error) {
	for {
		var h [8]byte
		if err := rd.read(h[:], "its audio (a data chunk)"); err != nil {
			return Format{}, err
		}
		id, size := string(h[0:4]), binary.LittleEndian.Uint32(h[4:8])
		switch {
		case id == "data" && rd.format == nil:
			return Format{}, &Error{Problem: NotWAV, Detail: "its audio comes before its format (the fmt chunk)"}
		case id == "data":
			rd.declared = size
			return *rd.format, nil
		case id == "fmt " && (size < 16 || size > maxFormatChunk):
			return Format{}, &Error{Problem: NotWAV, Detail: fmt.Sprintf("its fmt chunk is %d bytes long", size)}
		case size > maxOtherChunk:
			return Format{}, &Error{Problem: NotWAV, Detail: fmt.Sprintf("its %q chunk is %d bytes long, before any audio", id, size)}
		}
		body := make([]byte, int(size)+int(size%2)) // chunks are padded to an even size
		if err := rd.read(body, "the end of its "+fmt.Sprintf("%q", id)+" chunk"); err != nil {
			return Format{}, err
		}
		if id == "fmt " {
			f, err := parseFormat(body[:size])
			if err != nil {
				return Format{}, err
			}
			rd.format = &f
		}
	}
}

// audio checks the data chunk against lim: by its declared size first,
// before reading it, then by the audio read (a recorder that streams
// writes no size, and a file may end early).
func (rd *reader) audio(f Format, lim Limits) (Recording, error) {
	header := int64(rd.file.Len())
	if rd.declared != 0 && rd.declared != streamedSize {
		if err := check(f, int64(rd.declared), header, lim); err != nil {
			return Recording{}, err
		}
	}
	if _, err := io.Copy(io.Discard, rd.r); err != nil {
		return Recording{}, err
	}
	size := int64(rd.file.Len()) - header
	if rd.declared != 0 && rd.declared != streamedSize {
		size = min(size, int64(rd.declared))
	}
	if int64(rd.file.Len()) > lim.MaxBytes {
		return Recording{}, &Error{Problem: TooLarge, Size: int64(rd.file.Len()), MaxBytes: lim.MaxBytes}
	}
	if err := check(f, size, header, lim); err != nil {
		return Recording{}, err
	}
	return Recording{Format: f, Duration: f.duration(size)}, nil
}

// check refuses size bytes of audio in f that play too long or, after a
// header of header bytes, make the file too large, or that are none.
func check(f Format, size, header int64, lim Limits) error {
	switch d := f.duration(size); {
	case size < int64(f.Channels*f.BitsPerSample/8):
		return &Error{Problem: Empty}
	case d > lim.MaxDuration:
		return &Error{Problem: TooLong, Duration: d, Limit: lim.MaxDuration}
	case header+size > lim.MaxBytes:
		return &Error{Problem: TooLarge, Size: header + size, MaxBytes: lim.MaxBytes}
	}
	return nil
}

// parseFormat reads a fmt chunk and refuses audio the hub does not take.
func parseFormat(b []byte) (Format, error) {
	le := binary.LittleEndian
	f := Format{Encoding: le.Uint16(b[0:2]), Channels: int(le.Uint16(b[2:4])),
		SampleRate: int(le.Uint32(b[4:8])), BitsPerSample: int(le.Uint16(b[14:16]))}
	if f.Encoding == extensible && len(b) >= 26 {
		f.Encoding = le.Uint16(b[24:26]) // the sub-format GUID begins with the format tag
	}
	unsupported := func(format string, args ...any) (Format, error) {
		return Format{}, &Error{Problem: Unsupported, Detail: fmt.Sprintf(format, args...)}
	}
	switch {
	case f.Encoding != PCM && f.Encoding != Float:
		return unsupported("its audio is compressed (format %#04x)", f.Encoding)
	case f.Channels < 1 || f.Channels > 8:
		return unsupported("it has %d channels", f.Channels)
	case f.SampleRate < 4000 || f.SampleRate > 384000:
		return unsupported("its sample rate is %d Hz", f.SampleRate)
	case f.Encoding == PCM && f.BitsPerSample != 8 && f.BitsPerSample != 16 && f.BitsPerSample != 24 && f.BitsPerSample != 32,
		f.Encoding == Float && f.BitsPerSample != 32 && f.BitsPerSample != 64:
		return unsupported("its samples are %d bits", f.BitsPerSample)
	}
	return f, nil
}

// Header is the 44-byte header of a WAV file of f whose audio is
// dataSize bytes (0xFFFFFFFF for one written as it is recorded, whose
// size is not known).
func Header(f Format, dataSize uint32) []byte {
	le := binary.LittleEndian
	b := make([]byte, 44)
	copy(b[0:4], "RIFF")
	riffSize := uint32(streamedSize)
	if dataSize != streamedSize {
		riffSize = 36 + dataSize
	}
	le.PutUint32(b[4:8], riffSize)
	copy(b[8:16], "WAVEfmt ")
	le.PutUint32(b[16:20], 16)
	le.PutUint16(b[20:22], f.Encoding)
	le.PutUint16(b[22:24], uint16(f.Channels))
	le.PutUint32(b[24:28], uint32(f.SampleRate))
	le.PutUint32(b[28:32], uint32(f.bytesPerSecond()))
	le.PutUint16(b[32:34], uint16(f.Channels*f.BitsPerSample/8))
	le.PutUint16(b[34:36], uint16(f.BitsPerSample))
	copy(b[36:40], "data")
	le.PutUint32(b[40:44], dataSize)
	return b
}
