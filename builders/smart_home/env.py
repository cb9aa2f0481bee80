"""Smart home tools: homes, rooms, device status and control, scenes, routines and energy use."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal, Optional, TypedDict

from covert.env import Environment, ToolError, tool
from covert.language.spoken import say_date

Color = Literal["warm white", "cool white", "daylight", "red", "orange", "yellow", "green", "blue", "purple", "pink"]
DeviceKind = Literal["light", "thermostat", "lock", "plug", "blinds", "speaker"]
HvacMode = Literal["heat", "cool", "auto", "eco"]
Repeat = Literal["every day", "weekdays", "weekends", "once"]
SWITCHABLE = ("light", "plug", "speaker")


# -- return types -----------------------------------------------------------------------------------
class HomeSummary(TypedDict):
    """One home an account has access to.

    Attributes:
        home_id: The home's id.
        name: The home's name in the app, such as Main House.
        city: City the home is in.
        country: ISO country code.
        role: owner or member: the account's role in this home.
        room_count: Number of rooms set up.
        device_count: Number of connected devices.
    """

    home_id: str
    name: str
    city: str
    country: str
    role: str
    room_count: int
    device_count: int


class AccountHomes(TypedDict):
    """The homes of one account.

    Attributes:
        owner_name: Name on the account.
        email: The account's email address.
        home_count: Number of homes the account can control.
        homes: Homes the account can control.
    """

    owner_name: str
    email: str
    home_count: int
    homes: list[HomeSummary]


class Address(TypedDict):
    """A postal address.

    Attributes:
        street: House number and street.
        city: City.
        postcode: Postal code.
        country: ISO country code.
    """

    street: str
    city: str
    postcode: str
    country: str


class Member(TypedDict):
    """A person with access to a home.

    Attributes:
        name: Full name.
        role: owner or member.
    """

    name: str
    role: str


class Tariff(TypedDict):
    """An electricity tariff.

    Attributes:
        price_per_kwh: Price of one kilowatt-hour.
        currency: ISO currency code.
    """

    price_per_kwh: float
    currency: str


class RoomSummary(TypedDict):
    """A room of a home.

    Attributes:
        room_id: The room's id.
        name: Room name, such as Living Room.
        floor: Floor number (0 is the ground floor).
        device_count: Number of devices in the room.
    """

    room_id: str
    name: str
    floor: int
    device_count: int


class ThermostatSummary(TypedDict):
    """A thermostat, as the home's climate overview shows it.

    Attributes:
        thermostat_id: The thermostat's device id.
        name: Thermostat name, such as Hallway Thermostat.
        room_name: The room it is in.
        online: Whether the hub can reach it.
        hvac_mode: heat, cool, auto, eco or off.
        target_temp_c: Target temperature in degrees Celsius.
        current_temp_c: Measured temperature in degrees Celsius.
    """

    thermostat_id: str
    name: str
    room_name: str
    online: bool
    hvac_mode: str
    target_temp_c: float
    current_temp_c: float


class LockSummary(TypedDict):
    """A door lock, as the home's security overview shows it.

    Attributes:
        lock_id: The lock's device id.
        name: Lock name, such as Front Door.
        room_name: The room it is in.
        online: Whether the hub can reach it.
        lock_state: locked or unlocked.
        door_state: open or closed.
    """

    lock_id: str
    name: str
    room_name: str
    online: bool
    lock_state: str
    door_state: str


class HomeDetails(TypedDict):
    """A home with its rooms and its climate and security overview.

    Attributes:
        home_id: The home's id.
        name: The home's name.
        address: Postal address.
        timezone: IANA time zone of the home.
        presence: home or away: whether the household is marked as home.
        members: People with access.
        energy_tariff: The electricity price used for cost estimates.
        rooms: Rooms, ground floor first.
        thermostats: Climate overview: the home's thermostats.
        locks: Security overview: the home's door locks.
        room_count: Number of rooms.
        device_count: Number of devices.
        offline_device_count: Number of devices not reachable right now.
    """

    home_id: str
    name: str
    address: Address
    timezone: str
    presence: str
    members: list[Member]
    energy_tariff: Tariff
    rooms: list[RoomSummary]
    thermostats: list[ThermostatSummary]
    locks: list[LockSummary]
    room_count: int
    device_count: int
    offline_device_count: int


class DeviceSummary(TypedDict):
    """A device of a home.

    Attributes:
        device_id: The device's id.
        name: Device name, such as Floor Lamp.
        kind: light, thermostat, lock, plug, blinds or speaker.
        room_name: The room it is in.
        manufacturer: Brand.
        model: Model name.
        online: Whether the hub can reach the device.
        status_summary: Its current state in words.
    """

    device_id: str
    name: str
    kind: str
    room_name: str
    manufacturer: str
    model: str
    online: bool
    status_summary: str


class HomeDevices(TypedDict):
    """The devices of a home, or of one of its rooms.

    Attributes:
        home_id: The home's id.
        home_name: The home's name.
        room_name: The room the list is limited to, empty for the whole home.
        device_count: Number of devices listed.
        online_count: How many of them are online.
        devices: The devices, room by room.
    """

    home_id: str
    home_name: str
    room_name: str
    device_count: int
    online_count: int
    devices: list[DeviceSummary]


class DeviceState(TypedDict, total=False):
    """The current settings of a device; which fields appear depends on its kind.

    Attributes:
        power_state: on or off (lights, plugs, speakers).
        brightness_pct: Brightness from 1 to 100 percent (lights).
        current_color: Current colour (lights).
        supports_color: Whether the bulb can change colour (lights).
        hvac_mode: heat, cool, auto, eco or off (thermostats).
        target_temp_c: Target temperature in degrees Celsius (thermostats).
        current_temp_c: Measured temperature in degrees Celsius (thermostats).
        humidity_pct: Measured relative humidity (thermostats).
        min_temp_c: Lowest target allowed, degrees Celsius (thermostats).
        max_temp_c: Highest target allowed, degrees Celsius (thermostats).
        lock_state: locked or unlocked (locks).
        door_state: open or closed, from the lock's door sensor (locks).
        power_w: Current draw in watts (plugs).
        position_pct: How far open, 0 closed to 100 fully open (blinds).
        volume_pct: Volume in percent (speakers).
        now_playing: What is playing, empty when nothing (speakers).
    """

    power_state: str
    brightness_pct: int
    current_color: str
    supports_color: bool
    hvac_mode: str
    target_temp_c: float
    current_temp_c: float
    humidity_pct: int
    min_temp_c: float
    max_temp_c: float
    lock_state: str
    door_state: str
    power_w: float
    position_pct: int
    volume_pct: int
    now_playing: str


class _DeviceStatusBase(TypedDict):
    """Full status of one device.

    Attributes:
        device_id: The device's id.
        name: Device name.
        kind: light, thermostat, lock, plug, blinds or speaker.
        room_name: The room it is in.
        manufacturer: Brand.
        model: Model name.
        firmware: Installed firmware version.
        connection: Radio it uses (Wi-Fi, Zigbee, Thread, Z-Wave...).
        online: Whether the hub can reach it.
        connectivity: online or offline, in words.
        last_seen: When the hub last heard from it (ISO 8601, UTC).
        status_summary: Its current state in words.
        state: Its current settings.
    """

    device_id: str
    name: str
    kind: str
    room_name: str
    manufacturer: str
    model: str
    firmware: str
    connection: str
    online: bool
    connectivity: str
    last_seen: str
    status_summary: str
    state: DeviceState


class DeviceStatus(_DeviceStatusBase, total=False):
    """Full status of one device.

    Attributes:
        device_id: The device's id.
        name: Device name.
        kind: light, thermostat, lock, plug, blinds or speaker.
        room_name: The room it is in.
        manufacturer: Brand.
        model: Model name.
        firmware: Installed firmware version.
        connection: Radio it uses (Wi-Fi, Zigbee, Thread, Z-Wave...).
        online: Whether the hub can reach it.
        connectivity: online or offline, in words.
        last_seen: When the hub last heard from it (ISO 8601, UTC).
        status_summary: Its current state in words.
        state: Its current settings.
        battery_pct: Battery level in percent (battery-powered locks and blinds only).
    """

    battery_pct: int


class DeviceUpdate(TypedDict):
    """A device after a change.

    Attributes:
        device_id: The device's id.
        name: Device name.
        kind: Device kind.
        room_name: Room it is in.
        status_summary: Its new state in words.
        state: Its new settings.
        updated_at: When the change was applied (ISO 8601, UTC).
    """

    device_id: str
    name: str
    kind: str
    room_name: str
    status_summary: str
    state: DeviceState
    updated_at: str


class Reading(TypedDict):
    """Energy used on one day.

    Attributes:
        date: The day (YYYY-MM-DD).
        kwh: Energy used that day in kWh.
    """

    date: str
    kwh: float


class Money(TypedDict):
    """An amount of money.

    Attributes:
        amount: The amount.
        currency: ISO currency code.
    """

    amount: float
    currency: str


class EnergyUsage(TypedDict):
    """Energy a device used over a period.

    Attributes:
        device_id: The device's id.
        device_name: Device name.
        period_start: First day covered (YYYY-MM-DD).
        period_end: Last day covered (YYYY-MM-DD).
        days: Number of days covered.
        total_kwh: Energy used over the period in kWh.
        average_daily_kwh: Mean energy per day in kWh.
        peak_date: Day with the highest use.
        peak_kwh: Energy used on that day in kWh.
        estimated_cost: Cost at the home's tariff.
        readings: Daily readings.
    """

    device_id: str
    device_name: str
    period_start: str
    period_end: str
    days: int
    total_kwh: float
    average_daily_kwh: float
    peak_date: str
    peak_kwh: float
    estimated_cost: Money
    readings: list[Reading]


class SceneSummary(TypedDict):
    """A scene: a saved set of device settings.

    Attributes:
        scene_id: The scene's id.
        name: Scene name, such as Movie Night.
        device_count: Number of devices it adjusts.
        device_names: Names of those devices.
        last_activated: When it last ran (ISO 8601, UTC), empty if never.
    """

    scene_id: str
    name: str
    device_count: int
    device_names: str
    last_activated: str


class SceneRef(TypedDict):
    """The scene a routine runs.

    Attributes:
        scene_id: The scene's id.
        name: Scene name.
    """

    scene_id: str
    name: str


class Routine(TypedDict):
    """A routine: a scene run on a schedule.

    Attributes:
        routine_id: The routine's id.
        name: Routine name, such as Weekday Wake-up.
        time_of_day: Local time it runs (HH:MM, 24-hour).
        recurrence: every day, weekdays, weekends or once.
        enabled: Whether it is switched on.
        next_run: Next local run (YYYY-MM-DDTHH:MM), empty when disabled.
        scene: The scene it runs.
        created_at: When it was created (ISO 8601, UTC).
    """

    routine_id: str
    name: str
    time_of_day: str
    recurrence: str
    enabled: bool
    next_run: str
    scene: SceneRef
    created_at: str


class Automations(TypedDict):
    """The scenes and routines of a home.

    Attributes:
        home_id: The home's id.
        home_name: The home's name.
        scene_count: Number of scenes.
        routine_count: Number of routines.
        scenes: Scenes.
        routines: Routines.
    """

    home_id: str
    home_name: str
    scene_count: int
    routine_count: int
    scenes: list[SceneSummary]
    routines: list[Routine]


class DeviceChange(TypedDict):
    """One device a scene adjusted.

    Attributes:
        device_id: The device's id.
        name: Device name.
        status_summary: Its new state in words.
    """

    device_id: str
    name: str
    status_summary: str


class SceneRun(TypedDict):
    """A scene that was just activated.

    Attributes:
        scene_id: The scene's id.
        name: Scene name.
        home_id: The home it belongs to.
        activated_at: When it ran (ISO 8601, UTC).
        devices_updated: Number of devices adjusted.
        changes: The adjusted devices.
    """

    scene_id: str
    name: str
    home_id: str
    activated_at: str
    devices_updated: int
    changes: list[DeviceChange]


class DeletedRoutine(TypedDict):
    """A deleted routine.

    Attributes:
        routine_id: The routine's id.
        name: Routine name.
        home_id: The home it belonged to.
        deleted: Always true.
    """

    routine_id: str
    name: str
    home_id: str
    deleted: bool


# -- helpers -----------------------------------------------------------------------------------------
def _summary(device: dict[str, Any]) -> str:
    """The device's state in words, as the app shows it."""
    if not device["online"]:
        return f"offline since {say_date(device['last_seen'][:10])}"  # the day, as the app shows it
    kind, st = device["kind"], device["state"]
    if kind == "light":
        if st["power_state"] == "off":
            return "off"
        return f"on at {st['brightness_pct']}% brightness, {st['current_color']}"
    if kind == "thermostat":
        now = f"currently {st['current_temp_c']:.1f} °C"
        mode = st["hvac_mode"]
        if mode == "off":
            return f"off ({now})"
        verb = {"heat": "heating to", "cool": "cooling to", "auto": "in auto mode, holding",
                "eco": "in eco mode, holding"}[mode]
        return f"{verb} {st['target_temp_c']:.1f} °C, {now}"
    if kind == "lock":
        return f"{st['lock_state']}, door {st['door_state']}"
    if kind == "plug":
        return f"on, drawing {st['power_w']:.1f} W" if st["power_state"] == "on" else "off"
    if kind == "blinds":
        pos = st["position_pct"]
        return "closed" if pos == 0 else "fully open" if pos == 100 else f"{pos}% open"
    if st["power_state"] == "off":
        return "off"
    playing = f", playing {st['now_playing']}" if st["now_playing"] else ", idle"
    return f"on at {st['volume_pct']}% volume{playing}"


def _parse_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return None


def _parse_time(text: str) -> tuple[int, int] | None:
    parts = text.strip().split(":")
    if len(parts) != 2 or not (parts[0].isdigit() and parts[1].isdigit()) or len(parts[0]) > 2 or len(parts[1]) != 2:
        return None
    hour, minute = int(parts[0]), int(parts[1])
    if hour > 23 or minute > 59:
        return None
    return hour, minute


class SmartHomeEnv(Environment):
    """The cloud side of a smart home hub app."""

    name = "smart_home"

    # -- helpers ---------------------------------------------------------------------------------
    def _now(self) -> str:
        return self.state.get("meta", "clock")["now"]

    def _home(self, home_id: str) -> dict:
        home = self.state.get("homes", home_id)
        if home is None:
            raise ToolError("home_not_found", f"No home has id {home_id}.")
        return home

    def _device(self, device_id: str) -> dict:
        device = self.state.get("devices", device_id)
        if device is None:
            raise ToolError("device_not_found", f"No device has id {device_id}.")
        return device

    def _online(self, device: dict) -> None:
        if not device["online"]:
            raise ToolError("device_offline", f"The {device['name']} is offline (last seen {device['last_seen']}); "
                                              "check its power and connection, then try again.")

    def _room_name(self, room_id: str) -> str:
        room = self.state.get("rooms", room_id)
        return room["name"] if room is not None else ""

    def _update(self, device: dict) -> DeviceUpdate:
        return {"device_id": device["device_id"], "name": device["name"], "kind": device["kind"],
                "room_name": self._room_name(device["room_id"]), "status_summary": _summary(device),
                "state": dict(device["state"]), "updated_at": self._now()}

    def _next_run(self, routine: dict) -> str:
        if not routine["enabled"]:
            return ""
        now = self._now()
        today = date.fromisoformat(now[:10])
        at = routine["time_of_day"]
        for offset in range(8):
            day = today + timedelta(days=offset)
            if offset == 0 and at <= now[11:16]:
                continue
            weekday = day.weekday()
            if routine["recurrence"] == "weekdays" and weekday >= 5:
                continue
            if routine["recurrence"] == "weekends" and weekday < 5:
                continue
            return f"{day.isoformat()}T{at}"
        return ""

    def _routine(self, routine: dict) -> Routine:
        scene = self.state.get("scenes", routine["scene_id"])
        return {"routine_id": routine["routine_id"], "name": routine["name"], "time_of_day": routine["time_of_day"],
                "recurrence": routine["recurrence"], "enabled": routine["enabled"], "next_run": self._next_run(routine),
                "scene": {"scene_id": routine["scene_id"], "name": scene["name"] if scene else ""},
                "created_at": routine["created_at"]}

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("account_not_found",))
    def find_homes_by_email(self, email: str) -> AccountHomes:
        """Find the account registered to an email address and the homes it can control.

        Args:
            email: The email address the person signs in with, such as olivia.walsh12@example.com.
        """
        account = self.state.find_one("accounts", email=email.strip().lower())
        if account is None:
            raise ToolError("account_not_found", "No account is registered to that email address.")
        homes = []
        for home_id in account["home_ids"]:
            home = self.state.get("homes", home_id)
            if home is None:
                continue
            role = next((m["role"] for m in home["members"] if m["account_id"] == account["account_id"]), "member")
            homes.append({"home_id": home_id, "name": home["name"], "city": home["address"]["city"],
                          "country": home["address"]["country"], "role": role,
                          "room_count": len(self.state.find("rooms", home_id=home_id)),
                          "device_count": len(self.state.find("devices", home_id=home_id))})
        return {"owner_name": account["name"], "email": account["email"], "home_count": len(homes), "homes": homes}

    @tool(errors=("home_not_found",))
    def get_home(self, home_id: str) -> HomeDetails:
        """Get a home's address, members, electricity tariff, rooms, thermostats and door locks.

        Args:
            home_id: The home's id, such as home_3f9a0c21.
        """
        home = self._home(home_id)
        devices = self.state.find("devices", home_id=home_id)
        rooms = sorted(self.state.find("rooms", home_id=home_id), key=lambda r: r["floor"])
        names = {r["room_id"]: r["name"] for r in rooms}
        per_room: dict[str, int] = {}
        thermostats, locks = [], []
        for d in devices:
            per_room[d["room_id"]] = per_room.get(d["room_id"], 0) + 1
            st = d["state"]
            if d["kind"] == "thermostat":
                thermostats.append({"thermostat_id": d["device_id"], "name": d["name"],
                                    "room_name": names.get(d["room_id"], ""), "online": d["online"],
                                    "hvac_mode": st["hvac_mode"], "target_temp_c": st["target_temp_c"],
                                    "current_temp_c": st["current_temp_c"]})
            elif d["kind"] == "lock":
                locks.append({"lock_id": d["device_id"], "name": d["name"], "room_name": names.get(d["room_id"], ""),
                              "online": d["online"], "lock_state": st["lock_state"], "door_state": st["door_state"]})
        return {
            "home_id": home_id, "name": home["name"], "address": dict(home["address"]), "timezone": home["timezone"],
            "presence": home["presence"], "members": [{"name": m["name"], "role": m["role"]} for m in home["members"]],
            "energy_tariff": dict(home["energy_tariff"]),
            "rooms": [{"room_id": r["room_id"], "name": r["name"], "floor": r["floor"],
                       "device_count": per_room.get(r["room_id"], 0)} for r in rooms],
            "thermostats": thermostats, "locks": locks, "room_count": len(rooms), "device_count": len(devices),
            "offline_device_count": sum(1 for d in devices if not d["online"]),
        }

    @tool(errors=("home_not_found", "room_not_found"))
    def list_devices(self, home_id: str, room_id: Optional[str] = None, kind: Optional[DeviceKind] = None) -> HomeDevices:
        """List a home's devices, optionally only one room or one kind, with whether each is online and what it is doing.

        Args:
            home_id: The home's id, such as home_3f9a0c21.
            room_id: Only list the devices of this room of the home, such as room_8b21d4f0.
            kind: Only list devices of this kind.
        """
        home = self._home(home_id)
        room_name = ""
        if room_id is not None:
            room = self.state.get("rooms", room_id)
            if room is None or room["home_id"] != home_id:
                raise ToolError("room_not_found", f"Room {room_id} is not a room of home {home_id}.")
            found = self.state.find("devices", room_id=room_id)
            room_name = room["name"]
        else:
            found = self.state.find("devices", home_id=home_id)
        rooms: dict[str, str] = {}
        devices = []
        for d in found:
            if kind is not None and d["kind"] != kind:
                continue
            if d["room_id"] not in rooms:
                rooms[d["room_id"]] = self._room_name(d["room_id"])
            devices.append({"device_id": d["device_id"], "name": d["name"], "kind": d["kind"],
                            "room_name": rooms[d["room_id"]], "manufacturer": d["manufacturer"], "model": d["model"],
                            "online": d["online"], "status_summary": _summary(d)})
        return {"home_id": home_id, "home_name": home["name"], "room_name": room_name, "device_count": len(devices),
                "online_count": sum(1 for d in devices if d["online"]), "devices": devices}

    @tool(errors=("device_not_found",))
    def get_device_status(self, device_id: str) -> DeviceStatus:
        """Get a device's full status: connectivity, battery, firmware and current settings.

        Args:
            device_id: The device's id, such as dev_4c9e1a7b.
        """
        device = self._device(device_id)
        out: dict[str, Any] = {
            "device_id": device_id, "name": device["name"], "kind": device["kind"],
            "room_name": self._room_name(device["room_id"]),
            "manufacturer": device["manufacturer"], "model": device["model"], "firmware": device["firmware"],
            "connection": device["connection"], "online": device["online"],
            "connectivity": "online" if device["online"] else "offline", "last_seen": device["last_seen"],
            "status_summary": _summary(device), "state": dict(device["state"]),
        }
        if "battery_pct" in device:
            out["battery_pct"] = device["battery_pct"]
        return out

    @tool(errors=("device_not_found", "invalid_date_range", "no_energy_data"))
    def get_energy_usage(self, device_id: str, start_date: str, end_date: str) -> EnergyUsage:
        """Get how much electricity a device used per day over a period, with the total and its estimated cost.

        Args:
            device_id: The device's id, such as dev_4c9e1a7b.
            start_date: First day of the period (YYYY-MM-DD).
            end_date: Last day of the period (YYYY-MM-DD), inclusive.
        """
        device = self._device(device_id)
        start, end = _parse_date(start_date), _parse_date(end_date)
        if start is None or end is None or end < start:
            raise ToolError("invalid_date_range", "Give the period as two YYYY-MM-DD dates, the start not after the end.")
        meter = self.state.get("energy", device_id)
        if meter is None:
            raise ToolError("no_energy_data", f"The {device['name']} ({device['kind']}) does not report energy use.")
        first = date.fromisoformat(meter["first_date"])
        last = first + timedelta(days=len(meter["daily_kwh"]) - 1)
        lo, hi = max(start, first), min(end, last)
        if lo > hi:
            raise ToolError("no_energy_data", f"Energy readings for the {device['name']} cover {first.isoformat()} "
                                              f"to {last.isoformat()} only.")
        offset, base = (lo - first).days, first.toordinal()
        values = meter["daily_kwh"][offset:offset + (hi - lo).days + 1]
        readings = [{"date": date.fromordinal(base + offset + i).isoformat(), "kwh": kwh} for i, kwh in enumerate(values)]
        total = round(sum(values), 2)
        peak = readings[values.index(max(values))]
        tariff = self._home(device["home_id"])["energy_tariff"]
        return {"device_id": device_id, "device_name": device["name"], "period_start": lo.isoformat(),
                "period_end": hi.isoformat(), "days": len(readings), "total_kwh": total,
                "average_daily_kwh": round(total / len(readings), 2), "peak_date": peak["date"],
                "peak_kwh": peak["kwh"],
                "estimated_cost": {"amount": round(total * tariff["price_per_kwh"], 2), "currency": tariff["currency"]},
                "readings": readings}

    @tool(errors=("home_not_found",))
    def list_automations(self, home_id: str) -> Automations:
        """List a home's scenes and its routines (scenes scheduled to run at set times).

        Args:
            home_id: The home's id, such as home_3f9a0c21.
        """
        home = self._home(home_id)
        scenes = []
        for scene in self.state.find("scenes", home_id=home_id):
            names = [d["name"] for a in scene["actions"] if (d := self.state.get("devices", a["device_id"]))]
            scenes.append({"scene_id": scene["scene_id"], "name": scene["name"], "device_count": len(names),
                           "device_names": ", ".join(names), "last_activated": scene["last_activated"]})
        routines = [self._routine(r) for r in self.state.find("routines", home_id=home_id)]
        return {"home_id": home_id, "home_name": home["name"], "scene_count": len(scenes),
                "routine_count": len(routines), "scenes": scenes, "routines": routines}

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("device_not_found", "device_offline", "unsupported_setting", "color_not_supported",
                               "value_out_of_range", "conflicting_settings"))
    def control_device(
        self,
        device_id: str,
        power: Literal["on", "off"],
        brightness: Optional[int] = None,
        color: Optional[Color] = None,
    ) -> DeviceUpdate:
        """Switch a light, plug or speaker on or off; when turning a light on, optionally set its brightness and colour.

        Args:
            device_id: The device's id, such as dev_4c9e1a7b.
            power: Turn the device on or off.
            brightness: Light brightness in percent, 1 to 100; only when turning a light on.
            color: Light colour; only when turning a light on, and only colour bulbs accept colours other than their fixed white.
        """
        current = self._device(device_id)
        kind = current["kind"]
        if kind not in SWITCHABLE:
            tool_name = {"thermostat": "set_thermostat", "lock": "set_lock"}.get(kind)
            hint = f"; use {tool_name} instead" if tool_name else "; it can only be adjusted through a scene"
            raise ToolError("unsupported_setting", f"The {current['name']} is a {kind} and cannot be switched{hint}.")
        if (brightness is not None or color is not None) and kind != "light":
            raise ToolError("unsupported_setting", f"The {current['name']} is a {kind}; only lights have brightness and colour.")
        if power == "off" and (brightness is not None or color is not None):
            raise ToolError("conflicting_settings", "Brightness and colour can only be set while turning a light on.")
        if brightness is not None and not 1 <= brightness <= 100:
            raise ToolError("value_out_of_range", "Brightness goes from 1 to 100 percent.")
        if color is not None and not current["state"]["supports_color"] and color != current["state"]["current_color"]:
            raise ToolError("color_not_supported", f"The {current['name']} ({current['model']}) is a white-only bulb "
                                                   "and cannot change colour.")
        self._online(current)
        device = self.state.edit("devices", device_id)
        state = device["state"]
        state["power_state"] = power
        if kind == "plug":
            state["power_w"] = device.get("load_w", 60.0) if power == "on" else 0.0
        if kind == "speaker" and power == "off":
            state["now_playing"] = ""
        if brightness is not None:
            state["brightness_pct"] = brightness
        if color is not None:
            state["current_color"] = color
        device["last_seen"] = self._now()
        return self._update(device)

    @tool(writes=True, errors=("device_not_found", "not_a_thermostat", "device_offline", "thermostat_off",
                               "temperature_out_of_range"))
    def set_thermostat(self, thermostat_id: str, temperature_c: float, mode: Optional[HvacMode] = None) -> DeviceUpdate:
        """Set a thermostat's target temperature, and optionally its mode.

        Args:
            thermostat_id: The thermostat's device id, such as dev_4c9e1a7b.
            temperature_c: New target temperature in degrees Celsius; must lie within the thermostat's limits.
            mode: New mode: heat, cool, auto or eco; leave out to keep the current mode (a thermostat that is off needs one).
        """
        device_id = thermostat_id
        current = self._device(device_id)
        if current["kind"] != "thermostat":
            raise ToolError("not_a_thermostat", f"The {current['name']} is a {current['kind']}, not a thermostat.")
        self._online(current)
        if (mode or current["state"]["hvac_mode"]) == "off":
            raise ToolError("thermostat_off", f"The {current['name']} is switched off; give a mode (heat, cool, auto "
                                              "or eco) to turn it on with a new target.")
        low, high = current["state"]["min_temp_c"], current["state"]["max_temp_c"]
        if not low <= temperature_c <= high:
            raise ToolError("temperature_out_of_range", f"The {current['name']} accepts targets from {low:.1f} °C "
                                                        f"to {high:.1f} °C.")
        device = self.state.edit("devices", device_id)
        device["state"]["target_temp_c"] = round(float(temperature_c) * 2) / 2
        if mode is not None:
            device["state"]["hvac_mode"] = mode
        device["last_seen"] = self._now()
        return self._update(device)

    @tool(writes=True, errors=("device_not_found", "not_a_lock", "device_offline", "door_open"))
    def set_lock(self, lock_id: str, action: Literal["lock", "unlock"]) -> DeviceUpdate:
        """Lock or unlock a smart door lock. A door that is standing open cannot be locked.

        Args:
            lock_id: The lock's device id, such as dev_4c9e1a7b.
            action: lock or unlock.
        """
        device_id = lock_id
        current = self._device(device_id)
        if current["kind"] != "lock":
            raise ToolError("not_a_lock", f"The {current['name']} is a {current['kind']}, not a lock.")
        self._online(current)
        if action == "lock" and current["state"]["door_state"] == "open":
            raise ToolError("door_open", f"The {current['name']} is standing open; close it before locking.")
        device = self.state.edit("devices", device_id)
        device["state"]["lock_state"] = "locked" if action == "lock" else "unlocked"
        device["last_seen"] = self._now()
        return self._update(device)

    @tool(writes=True, errors=("scene_not_found", "scene_device_offline", "door_open"))
    def activate_scene(self, scene_id: str) -> SceneRun:
        """Run a scene now, applying its saved settings to all of its devices at once.

        Args:
            scene_id: The scene's id, such as scene_71ac09e3.
        """
        scene = self.state.get("scenes", scene_id)
        if scene is None:
            raise ToolError("scene_not_found", f"No scene has id {scene_id}.")
        targets = []
        for action in scene["actions"]:
            device = self.state.get("devices", action["device_id"])
            if device is None:
                continue
            if not device["online"]:
                raise ToolError("scene_device_offline", f"{scene['name']} cannot run: the {device['name']} is offline "
                                                        f"(last seen {device['last_seen']}).")
            if action["settings"].get("lock_state") == "locked" and device["state"]["door_state"] == "open":
                raise ToolError("door_open", f"{scene['name']} cannot run: the {device['name']} is standing open.")
            targets.append(action)
        now = self._now()
        changes = []
        for action in targets:
            device = self.state.edit("devices", action["device_id"])
            device["state"].update(action["settings"])
            if device["kind"] == "plug":
                device["state"]["power_w"] = device.get("load_w", 60.0) if device["state"]["power_state"] == "on" else 0.0
            if device["kind"] == "speaker" and device["state"]["power_state"] == "off":
                device["state"]["now_playing"] = ""
            device["last_seen"] = now
            changes.append({"device_id": device["device_id"], "name": device["name"], "status_summary": _summary(device)})
        self.state.edit("scenes", scene_id)["last_activated"] = now
        return {"scene_id": scene_id, "name": scene["name"], "home_id": scene["home_id"], "activated_at": now,
                "devices_updated": len(changes), "changes": changes}

    @tool(writes=True, errors=("home_not_found", "scene_not_found", "duplicate_routine_name", "invalid_time"))
    def create_routine(self, home_id: str, routine_name: str, scene_id: str, time: str, repeat: Repeat) -> Routine:
        """Create a routine that runs one of the home's scenes at a set local time.

        Args:
            home_id: The home's id, such as home_3f9a0c21.
            routine_name: Name for the routine; must differ from the home's other routines (blank uses the scene's name).
            scene_id: The scene to run, such as scene_71ac09e3; it must belong to the same home.
            time: Local time to run, HH:MM in 24-hour format.
            repeat: every day, weekdays, weekends or once.
        """
        self._home(home_id)
        scene = self.state.get("scenes", scene_id)
        if scene is None or scene["home_id"] != home_id:
            raise ToolError("scene_not_found", f"Scene {scene_id} is not a scene of home {home_id}.")
        name = " ".join(routine_name.split()) or scene["name"]
        for existing in self.state.find("routines", home_id=home_id):
            if existing["name"].lower() == name.lower():
                raise ToolError("duplicate_routine_name", f"This home already has a routine called {existing['name']}.")
        parsed = _parse_time(time)
        if parsed is None:
            raise ToolError("invalid_time", "Give the time as HH:MM in 24-hour format, such as 07:30.")
        routine_id = f"rtn_{self.state.next_id('routines')}"
        record = {"routine_id": routine_id, "home_id": home_id, "name": name,
                  "time_of_day": f"{parsed[0]:02d}:{parsed[1]:02d}", "recurrence": repeat, "scene_id": scene_id,
                  "enabled": True, "created_at": self._now()}
        self.state.insert("routines", routine_id, record)
        return self._routine(record)

    @tool(writes=True, errors=("routine_not_found",))
    def delete_routine(self, routine_id: str) -> DeletedRoutine:
        """Delete a routine. Its scene is kept.

        Args:
            routine_id: The routine's id, such as rtn_24136.
        """
        routine = self.state.get("routines", routine_id)
        if routine is None:
            raise ToolError("routine_not_found", f"No routine has id {routine_id}.")
        self.state.delete("routines", routine_id)
        return {"routine_id": routine_id, "name": routine["name"], "home_id": routine["home_id"], "deleted": True}
