package qrsvg_test

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/qrsvg"
)

// payload is a pairing code as the kiosk's scanner reads it.
const payload = `{"v":1,"base_url":"http://192.168.1.20:3000","token":"abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst"}`

// raster draws the SVG document back into modules: the path's runs
// ("Mx yhwv1h-wz") on the viewBox's grid.
func raster(t *testing.T, svg string) [][]bool {
	t.Helper()
	m := regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)".*<path fill="#000" d="([^"]*)"`).FindStringSubmatch(svg)
	if m == nil || m[1] != m[2] {
		t.Fatalf("not a square QR code drawing: %.200s", svg)
	}
	size, _ := strconv.Atoi(m[1])
	grid := make([][]bool, size)
	for i := range grid {
		grid[i] = make([]bool, size)
	}
	runs := regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)
	if rest := runs.ReplaceAllString(m[3], ""); rest != "" {
		t.Fatalf("path holds more than runs: %.100q", rest)
	}
	for _, r := range runs.FindAllStringSubmatch(m[3], -1) {
		x, _ := strconv.Atoi(r[1])
		y, _ := strconv.Atoi(r[2])
		w, _ := strconv.Atoi(r[3])
		for i := range w {
			grid[y][x+i] = true
		}
	}
	return grid
}

// TestFinderPatterns checks the drawing against what every QR code has:
// a light quiet zone four modules wide and the three 7×7 finder
// patterns (dark ring, light ring, dark 3×3 core) in its corners.
func TestFinderPatterns(t *testing.T) {
	c, err := qrsvg.Encode(payload)
	if err != nil {
		t.Fatal(err)
	}
	g := raster(t, c.SVG())
	n := len(g) - 8
	if (n-17)%4 != 0 || n < 21 {
		t.Fatalf("%d modules a side is no QR code version", n)
	}
	for i := range len(g) {
		for _, p := range [][2]int{{i, 0}, {i, 3}, {0, i}, {3, i}, {i, len(g) - 1}, {len(g) - 1, i}} {
			if g[p[1]][p[0]] {
				t.Fatalf("the quiet zone is dark at %v", p)
			}
		}
	}
	for _, corner := range [][2]int{{4, 4}, {4 + n - 7, 4}, {4, 4 + n - 7}} {
		for dy := range 7 {
			for dx := range 7 {
				ring := max(abs(dx-3), abs(dy-3))
				if want := ring != 2; g[corner[1]+dy][corner[0]+dx] != want {
					t.Fatalf("finder pattern at %v is wrong at (%d, %d)", corner, dx, dy)
				}
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestDecodesBack draws the code as an image and has ZBar read it (a
// real decoder, Debian's zbar-tools, which `make deps` installs).
func TestDecodesBack(t *testing.T) {
	zbar, err := exec.LookPath("zbarimg")
	if err != nil {
		t.Skip("zbarimg (Debian's zbar-tools) is not installed; `make deps` installs it")
	}
	c, err := qrsvg.Encode(payload)
	if err != nil {
		t.Fatal(err)
	}
	g := raster(t, c.SVG())
	const scale = 6
	img := image.NewGray(image.Rect(0, 0, len(g)*scale, len(g)*scale))
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			v := color.Gray{Y: 255}
			if g[y/scale][x/scale] {
				v = color.Gray{}
			}
			img.SetGray(x, y, v)
		}
	}
	file := filepath.Join(t.TempDir(), "pair.png")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command(zbar, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", file).Output()
	if err != nil {
		t.Fatalf("zbarimg read nothing: %v", err)
	}
	if got := strings.TrimRight(string(out), "\n"); got != payload {
		t.Fatalf("zbarimg read %q; want %q", got, payload)
	}
}

func TestTooLong(t *testing.T) {
	if _, err := qrsvg.Encode(strings.Repeat("x", 5000)); err == nil {
		t.Fatal("5000 characters encoded; a QR code holds at most 2953 bytes")
	}
}
