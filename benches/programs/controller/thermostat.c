/* mergelens benchmark corpus: a reactive thermostat controller. Its loop reads a
 * nondeterministic event and calls its handler; the handlers switch the heater. Opening
 * the door should stop heating, but on_door() only remembers the door, so a later tick
 * can switch the heater on with the door open. */
int nondet_int(void);

enum { OFF, HEAT, IDLE };
enum { EV_TICK, EV_BUTTON, EV_DOOR, EV_SENSOR };

static int mode = OFF;
static int door_open;
static int heater;
static int temperature = 18;
static const int target = 21;

void heater_on(void)
{
    __CPROVER_assert(!door_open, "the heater is never on with the door open");
    heater = 1;
}

void heater_off(void) { heater = 0; }

void on_button(void)
{
    if (mode == OFF) {
        mode = HEAT;
    } else {
        mode = OFF;
        if (heater)
            heater_off();
    }
}

void on_door(void)
{
    door_open = !door_open; /* the bug: heating goes on with the door open */
}

void on_sensor(void)
{
    int t = nondet_int();
    __CPROVER_assume(t >= 10 && t <= 30);
    temperature = t;
}

void on_tick(void)
{
    if (mode == HEAT && temperature < target && !heater)
        heater_on();
    else if (heater && temperature >= target)
        heater_off();
}

int main(void)
{
    for (;;) {
        int event = nondet_int();
        if (event == EV_TICK)
            on_tick();
        else if (event == EV_BUTTON)
            on_button();
        else if (event == EV_DOOR)
            on_door();
        else if (event == EV_SENSOR)
            on_sensor();
        else
            break;
    }
    return 0;
}
