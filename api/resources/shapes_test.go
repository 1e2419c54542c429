package resources

// The shapes' bytes, pinned: each shape is encoded from views that set
// every field (and from views that set none, and from the views each branch
// of a conversion takes), through the Rust shapes of /api/v1 and through
// the service's views of the web UI's /api, and compared with
// testdata/shapes.golden, byte for byte: field order, omissions and nulls
// included. Run with -update to rewrite the golden file after a deliberate
// change.

import (
	"bytes"
	"encoding/json"
	goflag "flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

var update = goflag.Bool("update", false, "rewrite testdata/shapes.golden")

// fill sets every field of v (a pointer) to a value that is not zero:
// strings to their field's name, numbers to n, pointers to a filled value,
// slices to one filled element.
func fill(v reflect.Value, name string, n int) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type() == reflect.TypeFor[*devices.Progress]() {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), name, n)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fill(v.Field(i), f.Name, n+i)
			}
		}
	case reflect.String:
		v.SetString("s-" + name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.5)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), name, n)
		v.Set(s)
	case reflect.Interface:
		v.Set(reflect.ValueOf(name))
	}
}

func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem(), "", 3)
	return v
}

// shapeCase is one shape encoded, by name.
type shapeCase struct {
	name string
	v    any
}

// renderers are the mounts' shapes, by the name the golden file gives
// them.
var renderers = []struct {
	name   string
	shapes Shapes
}{
	{"", RustShapes()},
	{"view ", ServiceViews()},
}

// allShapeCases are the cases of every renderer, each named with its
// renderer's name first.
func allShapeCases() []shapeCase {
	var out []shapeCase
	for _, r := range renderers {
		for _, c := range shapeCases(r.shapes) {
			out = append(out, shapeCase{r.name + c.name, c.v})
		}
	}
	return out
}

// shapeCases are the shapes encoded through s, by name.
func shapeCases(s Shapes) []shapeCase {
	full := filled[service.Light]()
	full.State.Mode = devices.ModeColor
	temp := filled[service.Light]()
	temp.State.Mode = devices.ModeTemperature
	temp.Capabilities.Dimmable = false
	bare := filled[service.Light]()
	bare.State = nil
	bare.Capabilities = devices.LightCaps{}

	media := filled[service.Media]()
	media.State.Transport = ""
	media.State.Source = ""
	quiet := filled[service.Media]()
	quiet.State = nil
	quiet.Receiver = ""

	sensorBool := filled[service.SensorView]()
	sensorBool.Readings[0].Type = devices.ReadingMotion
	sensorNum := filled[service.SensorView]()
	sensorNum.Readings[0].Bool = nil
	sensorNum.Readings[0].Unit = ""
	sensorOff := filled[service.SensorView]()
	sensorOff.Online = false

	scene := filled[service.SceneView]()
	home := filled[service.SceneView]()
	home.RoomID = ""
	room := filled[service.RoomView]()
	room.Members = []service.DeviceView{filled[service.DeviceView](), filled[service.DeviceView](), filled[service.DeviceView]()}
	room.Members[0].Kind = devices.KindLight
	room.Members[1].Kind = devices.KindMedia
	room.Members[2].Kind = devices.KindPower

	remote := filled[service.RemoteView]()
	noApp := filled[service.RemoteView]()
	noApp.CurrentApp = ""
	noApp.On = nil

	favorites := []devices.Favorite{filled[devices.Favorite](), {ID: "FV:2/22", Title: "Sunday Cleaning Mix"}}

	return []shapeCase{
		{"light", s.Light(full)},
		{"light temperature", s.Light(temp)},
		{"light bare", s.Light(bare)},
		{"light zero", s.Light(service.Light{})},
		{"room", s.Room(room)},
		{"room zero", s.Room(service.RoomView{})},
		{"scene", s.Scene(scene)},
		{"scene home", s.Scene(home)},
		{"scene zero", s.Scene(service.SceneView{})},
		{"counts", s.Fanout(filled[service.FanoutResult]())},
		{"counts zero", s.Fanout(service.FanoutResult{})},
		{"media", s.Media(filled[service.Media]())},
		{"media stopped", s.Media(media)},
		{"media no state", s.Media(quiet)},
		{"media zero", s.Media(service.Media{})},
		{"power", s.Power(filled[service.PowerView]())},
		{"power zero", s.Power(service.PowerView{})},
		{"remote", s.Remote(remote)},
		{"remote no app", s.Remote(noApp)},
		{"remote zero", s.Remote(service.RemoteView{})},
		{"remote read", s.RemoteRead(remote)},
		{"sensor", s.Sensor(filled[service.SensorView]())},
		{"sensor bool", s.Sensor(sensorBool)},
		{"sensor number", s.Sensor(sensorNum)},
		{"sensor offline", s.Sensor(sensorOff)},
		{"sensor zero", s.Sensor(service.SensorView{})},
		{"play on", s.PlayOn(filled[service.PlayOnResult]())},
		{"play on zero", s.PlayOn(service.PlayOnResult{})},
		{"favorites", s.Favorites(favorites)},
		{"favorites zero", s.Favorites([]devices.Favorite{})},
	}
}

func TestShapesBytes(t *testing.T) {
	var got bytes.Buffer
	for _, c := range allShapeCases() {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&got, "%s\n%s\n\n", c.name, b)
	}
	golden := filepath.Join("testdata", "shapes.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("the shapes' bytes changed:\n%s\nwant:\n%s", got.Bytes(), want)
	}
}

// TestShapesDeclareEachFieldOnce: no shape, nor any struct within one,
// leaves to encoding/json's rule for embedded names which of two fields of
// one name a client reads.
func TestShapesDeclareEachFieldOnce(t *testing.T) {
	checked := map[reflect.Type]bool{}
	var check func(t reflect.Type)
	check = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || checked[typ] || typ == reflect.TypeFor[time.Time]() {
			return
		}
		checked[typ] = true
		seen := map[string]string{}
		for _, f := range jsonFields(typ, "") {
			name, at, _ := strings.Cut(f, "@")
			if prev, ok := seen[name]; ok {
				t.Errorf("%s: %q is declared by %s and by %s", typ, name, prev, at)
			}
			seen[name] = at
		}
		for _, f := range reflect.VisibleFields(typ) {
			check(f.Type)
		}
	}
	for _, c := range allShapeCases() {
		check(reflect.TypeOf(c.v))
	}
	// The service's own views, as GET /home answers them.
	check(reflect.TypeFor[service.Home]())
}

// jsonFields lists a struct's JSON names, with those of the structs it
// embeds without a name of their own, each as "name@where".
func jsonFields(t reflect.Type, at string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" || (!f.IsExported() && !f.Anonymous):
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			out = append(out, jsonFields(f.Type, at+f.Type.Name()+".")...)
		case name == "":
			out = append(out, f.Name+"@"+at+f.Name)
		default:
			out = append(out, name+"@"+at+f.Name)
		}
	}
	return out
}
