package color

import "testing"

func TestKelvinToMirek(t *testing.T) {
	cases := map[int]int{25000: 40, 5000: 200, 2000: 500, 2700: 370, 3000: 333, 4000: 250, 5600: 178, 6500: 153, 0: 0, -100: 0}
	for k, want := range cases {
		if got := KelvinToMirek(k); got != want {
			t.Errorf("KelvinToMirek(%d) = %d, want %d", k, got, want)
		}
	}
}

func TestMirekToKelvin(t *testing.T) {
	cases := map[int]int{200: 5000, 40: 25000, 153: 6535, 454: 2202, 500: 2000, 0: 0, -5: 0}
	for m, want := range cases {
		if got := MirekToKelvin(m); got != want {
			t.Errorf("MirekToKelvin(%d) = %d, want %d", m, got, want)
		}
	}
}

func TestKelvinToRGBWarmIsRedder(t *testing.T) {
	warm, cool := KelvinToRGB(2000), KelvinToRGB(6500)
	if warm.R < cool.R || warm.B >= cool.B {
		t.Errorf("2000 K = %s is not redder than 6500 K = %s", warm.Hex(), cool.Hex())
	}
	if warm.R != 255 || warm.B > 64 {
		t.Errorf("2000 K = %s, want a deep orange", warm.Hex())
	}
	if c := KelvinToRGB(6600); c.R < 250 || c.G < 250 || c.B < 250 {
		t.Errorf("6600 K = %s, want near white", c.Hex())
	}
}

func TestKelvinToRGBMonotone(t *testing.T) {
	prev := KelvinToRGB(500)
	for k := 600; k <= 45000; k += 100 {
		c := KelvinToRGB(k)
		if c.R > prev.R || c.B < prev.B {
			t.Fatalf("%d K = %s after %s: red must not rise, blue must not fall", k, c.Hex(), prev.Hex())
		}
		prev = c
	}
	if KelvinToRGB(0) != KelvinToRGB(1000) || KelvinToRGB(90000) != KelvinToRGB(40000) {
		t.Error("kelvin outside 1000–40000 is not clamped")
	}
}

func TestWhiteLeansGreenOrMagenta(t *testing.T) {
	neutral, green, magenta := White(5600, 0), White(5600, -50), White(5600, 50)
	if neutral != KelvinToRGB(5600) {
		t.Errorf("White(5600, 0) = %s, want KelvinToRGB's %s", neutral.Hex(), KelvinToRGB(5600).Hex())
	}
	if green.G != neutral.G || green.R >= neutral.R || green.B >= neutral.B {
		t.Errorf("full green %s against neutral %s: want red and blue dimmed", green.Hex(), neutral.Hex())
	}
	if magenta.R != neutral.R || magenta.B != neutral.B || magenta.G >= neutral.G {
		t.Errorf("full magenta %s against neutral %s: want green dimmed", magenta.Hex(), neutral.Hex())
	}
	if White(5600, 400) != magenta || White(5600, -400) != green {
		t.Error("a shift beyond ±50 is not clamped")
	}
}
