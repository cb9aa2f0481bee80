"""How the assistant restates smart-home changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "control_device": ("turn {device_id} {power} at {brightness}% brightness in {color}",
                       "turn {device_id} {power} at {brightness}% brightness", "turn {device_id} {power}"),
    "set_thermostat": ("set {thermostat_id} to {temperature_c}°C in {mode} mode", "set {thermostat_id} to {temperature_c}°C"),
    "set_lock": ("{action} {lock_id}",),
    "activate_scene": ("turn on {scene_id}",),
    "create_routine": ("create a routine called \"{routine_name}\" in {home_id} that runs {scene_id} at {time} "
                       "({repeat})",),
    "delete_routine": ("delete {routine_id}",),
}
