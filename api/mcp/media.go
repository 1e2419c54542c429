package mcp

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

var deviceArg = map[string]schema{"device": str("the player's name or id")}

// playerOut is the answer of a tool about one player: its state, in the
// shape list_media_devices declares (not repeated, to keep tools/list
// small).
var playerOut = told("the player, as list_media_devices")

func (t *tools) mediaTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("list_media_devices", "Speakers, receivers and TVs, and what plays.",
			reads, noArgs, open(map[string]schema{"media": array("", mediaSchema)})),
			Handler: handle(t, t.listMedia)},
		{Tool: newTool("get_media_state", "One media player's live state and its sources.",
			reads, object(deviceArg, "device"), told("the player, as list_media_devices, with its sources")),
			Handler: handle(t, t.getMedia)},
		{Tool: newTool("set_media", "Set a player's power, volume, mute, source or transport. A source bound to a receiver sends volume and mute there.",
			acts, object(with(deviceArg, map[string]schema{
				"power":     boolean(""),
				"volume":    integer("0–100", 0, 100),
				"mute":      boolean(""),
				"source":    str("an input or app from get_media_state's sources"),
				"transport": enum("", service.TransportCommands),
			}), "device"), playerOut),
			Handler: handle(t, t.setMedia)},
		{Tool: newTool("list_media_favorites", "A player's favourites (stations, playlists, albums).",
			reads, object(deviceArg, "device"), open(map[string]schema{
				"device": str("as named in the call"),
				"favorites": array("", open(map[string]schema{
					"id": str(""), "title": str(""), "kind": str(""),
				})),
			})),
			Handler: handle(t, t.favorites)},
		{Tool: newTool("play_media_favorite", "Play one of a player's favourites, by id or title.",
			writes, object(with(deviceArg, map[string]schema{"favorite": str("")}), "device", "favorite"), playerOut),
			Handler: handle(t, t.playFavorite)},
		{Tool: newTool("cast_media", "Play a URL or a provider's content id on a player.",
			writes, object(with(deviceArg, map[string]schema{
				"content_id":   str("a URL or a provider's content id"),
				"content_type": enum("", service.CastTypes),
			}), "device", "content_id", "content_type"), playerOut),
			Handler: handle(t, t.cast)},
		{Tool: newTool("group_speakers", "Make speakers play in sync with one, which keeps playing.",
			writes, object(map[string]schema{
				"speaker": str("the speaker to follow"),
				"members": array("speakers to join it", str("")),
			}, "speaker", "members"), fanoutOut),
			Handler: handle(t, t.group)},
		{Tool: newTool("ungroup_speaker", "Make a speaker play on its own again.",
			writes, object(map[string]schema{"speaker": str("")}, "speaker"), playerOut),
			Handler: handle(t, t.ungroup)},
		{Tool: newTool("bind_receiver", `Route a source's volume, mute and power through a receiver, on one of its inputs; receiver "" unbinds.`,
			writes, object(with(deviceArg, map[string]schema{
				"receiver": str("the receiver's name or id"),
				"input":    str("the receiver input the source is on"),
			}), "device", "receiver"), playerOut),
			Handler: handle(t, t.bindReceiver)},
	}
}

func (t *tools) listMedia(ctx context.Context, _ struct{}) (result, error) {
	ms, err := t.svc.ListMedia(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]media, 0, len(ms))
	for _, m := range ms {
		out = append(out, mediaOf(m, false))
	}
	return result{text: lines(count(len(out), "media player")+":", out, withRoom(media.line)), data: map[string]any{"media": out}}, nil
}

// mediaResult answers with one player's state.
func mediaResult(m service.Media, err error) (result, error) {
	if err != nil {
		return result{}, err
	}
	v := mediaOf(m, true)
	text := v.line(false)
	if len(v.Sources) > 0 {
		text += "\nSources: " + strings.Join(v.Sources, ", ")
	}
	return result{text: text, data: v}, nil
}

type deviceArgs struct {
	Device string `json:"device"`
}

func (t *tools) getMedia(ctx context.Context, a deviceArgs) (result, error) {
	return mediaResult(t.svc.GetMedia(ctx, a.Device))
}

type setMediaArgs struct {
	Device    string  `json:"device"`
	Power     *bool   `json:"power"`
	Volume    *whole  `json:"volume"`
	Mute      *bool   `json:"mute"`
	Source    *string `json:"source"`
	Transport *string `json:"transport"`
}

// serviceInput: the service's messages about a media write name the
// fields of a MediaPatch.
func (setMediaArgs) serviceInput() (svc, own reflect.Type) {
	return reflect.TypeFor[service.MediaPatch](), reflect.TypeFor[setMediaArgs]()
}

func (t *tools) setMedia(ctx context.Context, a setMediaArgs) (result, error) {
	p := service.MediaPatch{Power: a.Power, Volume: ints(a.Volume), Mute: a.Mute, Source: a.Source, Transport: a.Transport}
	return mediaResult(t.svc.SetMedia(ctx, a.Device, p))
}

func (t *tools) favorites(ctx context.Context, a deviceArgs) (result, error) {
	favs, err := t.svc.Favorites(ctx, a.Device)
	if err != nil {
		return result{}, err
	}
	text := fmt.Sprintf("%s: %s", a.Device, count(len(favs), "favourite"))
	for i, f := range favs {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		text += sep + favoriteText(f)
	}
	return result{text: text, data: map[string]any{"device": a.Device, "favorites": favs}}, nil
}

func favoriteText(f devices.Favorite) string {
	if f.Kind == "" {
		return f.Title
	}
	return f.Title + " (" + f.Kind + ")"
}

type favoriteArgs struct {
	Device   string `json:"device"`
	Favorite string `json:"favorite"`
}

func (t *tools) playFavorite(ctx context.Context, a favoriteArgs) (result, error) {
	return mediaResult(t.svc.PlayFavorite(ctx, a.Device, a.Favorite))
}

type castArgs struct {
	Device      string `json:"device"`
	ContentID   string `json:"content_id"`
	ContentType string `json:"content_type"`
}

func (t *tools) cast(ctx context.Context, a castArgs) (result, error) {
	return mediaResult(t.svc.Cast(ctx, a.Device, a.ContentID, a.ContentType))
}

type groupArgs struct {
	Speaker string   `json:"speaker"`
	Members []string `json:"members"`
}

func (t *tools) group(ctx context.Context, a groupArgs) (result, error) {
	res, err := t.svc.Group(ctx, a.Speaker, a.Members)
	if err != nil {
		return result{}, err
	}
	f := fanoutOf(res)
	return result{text: f.text("Group with " + a.Speaker), data: f, failed: f.allFailed()}, nil
}

type speakerArgs struct {
	Speaker string `json:"speaker"`
}

func (t *tools) ungroup(ctx context.Context, a speakerArgs) (result, error) {
	return mediaResult(t.svc.Ungroup(ctx, a.Speaker))
}

type bindArgs struct {
	Device   string `json:"device"`
	Receiver string `json:"receiver"`
	Input    string `json:"input"`
}

func (t *tools) bindReceiver(ctx context.Context, a bindArgs) (result, error) {
	return mediaResult(t.svc.BindReceiver(ctx, a.Device, a.Receiver, a.Input))
}
