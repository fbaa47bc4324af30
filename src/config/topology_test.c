/*  topology_test: the topology's selftests, loading, --set, saving and
    validating files as users write them (and as they get them wrong).
    Above every other file of the topology: none of them calls it.
*/
#include "config/topology_internal.h"

#include "base/check.h"

#include <stdlib.h>
#include <string.h>

//  ------------------------------------------------------------------------
//  Selftest

//  Loads text, applies sets, validates; expects an error containing 'want'
int topology_expect(const char *text, const char *set, const char *want)
{
    errbuf_t err = {0};
    topology_t *topo = topology_load_text("t.cfg", text, &err);
    int rc = topo ? 0 : -1;
    if (topo && set)
        rc = topology_set(topo, set, &err);
    if (topo && rc == 0)
        rc = topology_validate(topo, &err);
    topology_destroy(&topo);
    if (rc == 0 || !strstr(err.msg, want)) {
        fprintf(stderr, "topology: wanted '%s', got '%s'\n", want,
                rc ? err.msg : "success");
        return -1;
    }
    return 0;
}

static const char *s_chain = "topology = chain\n"
                             "    transport = ipc\n"
                             "    sizes = 64,4096\n"
                             "publisher = pub\n"
                             "hop = tcp\n"
                             "    hwm = 5000\n"
                             "proxy = p1\n"
                             "hop\n"
                             "subscriber = sub\n"
                             "    count = 4\n";

static int s_test_load(void)
{
    errbuf_t err;
    params_t p;
    topology_t *topo = topology_load_text("t.cfg", s_chain, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    CHECK(topo->nstages == 3 && strcmp(topo->name, "chain") == 0);
    CHECK(topo->params.pattern == PATTERN_PUBSUB);
    topology_hop_params(topo, 0, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 5000);
    topology_hop_params(topo, 1, &p);
    CHECK(p.transport == TRANSPORT_IPC && p.hwm == 1000);
    topology_stage_params(topo, 2, &p);
    CHECK(p.count == 4 && p.sizes.n == 2);

    //  --set: the topology's transport moves hops that name none
    CHECK(topology_set(topo, "transport=inproc", &err) == 0);
    CHECK(topology_set(topo, "sub.count=2", &err) == 0);
    CHECK(topology_set(topo, "hop1.hwm=7", &err) == 0);
    topology_hop_params(topo, 1, &p);
    CHECK(p.transport == TRANSPORT_INPROC);
    topology_hop_params(topo, 0, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 7);
    topology_stage_params(topo, 2, &p);
    CHECK(p.count == 2);
    CHECK(topology_set(topo, "node=1", &err) == -1);
    CHECK(strstr(err.msg, "use STAGE.node=VALUE"));
    CHECK(topology_set(topo, "nosuch.hwm=1", &err) == -1);
    CHECK(strstr(err.msg, "no stage called 'nosuch'"));
    CHECK(topology_set(topo, "hop9.hwm=1", &err) == -1);
    CHECK(topology_set(topo, "hwm", &err) == -1);

    //  The effective config loads back to the same values
    topology_t *again = topology_reloaded(topo);
    CHECK(again);
    topology_hop_params(again, 0, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 7);
    topology_stage_params(again, 2, &p);
    CHECK(p.count == 2);
    topology_destroy(&again);
    topology_destroy(&topo);

    //  curve for the whole file passes over an inproc hop, and still
    //  does once saved: the hop does not get it as its own (refused)
    topo = topology_load_text("t.cfg",
                              "topology = t\n    curve = true\n"
                              "publisher = pub\nhop = inproc\nproxy = p\n"
                              "hop = tcp\nsubscriber = sub\n",
                              &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    again = topology_reloaded(topo);
    CHECK(again && !again->hops[0].params.set[KEY_CURVE]);
    topology_hop_params(again, 1, &p);
    CHECK(p.curve && again->hops[1].params.set[KEY_CURVE]);
    topology_destroy(&again);
    topology_destroy(&topo);
    //  a file of no hops has nothing to number
    topo = topology_load_text("t.cfg", "topology =5\n", &err);
    CHECK(topo && topo->nhops == 0);
    topology_destroy(&topo);
    return 0;
}

//  Where keys took their values, and copies that share nothing
static int s_test_where(void)
{
    errbuf_t err;
    char where[300];
    topology_t *topo = topology_load_text("t.cfg", s_chain, &err);
    CHECK(topo && topology_set(topo, "sub.cpus=0", &err) == 0);
    topology_where(topo, LEVEL_HOP, 0, KEY_HWM, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:6: ") == 0);
    topology_where(topo, LEVEL_HOP, 1, KEY_TRANSPORT, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:2: ") == 0); //  the topology's transport
    topology_where(topo, LEVEL_HOP, 0, KEY_TRANSPORT, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:5: ") == 0); //  hop = tcp
    topology_where(topo, LEVEL_STAGE, 2, KEY_CPUS, where, sizeof where);
    CHECK(strcmp(where, "--set sub.cpus=0: ") == 0);
    topology_where(topo, LEVEL_STAGE, 1, KEY_NODE, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:7: ") == 0); //  not given: the stage's line
    topology_t *copy = topology_dup(topo);
    CHECK(copy && copy->stages != topo->stages && copy->sets != topo->sets);
    CHECK(topology_set_as(copy, "hop2.hwm=9", "--sweep", &err) == 0);
    topology_where(copy, LEVEL_HOP, 1, KEY_HWM, where, sizeof where);
    CHECK(strcmp(where, "--sweep hop2.hwm=9: ") == 0);
    CHECK(topo->nsets == 1 && !topo->hops[1].params.set[KEY_HWM]);
    topology_destroy(&copy);
    topology_destroy(&topo);
    return 0;
}

//  The controller's line and the nodes key: read, set, saved, refused
static int s_test_controller(void)
{
    errbuf_t err;
    char where[300];
    int nodes[3];
    const char *text = "topology = t\n    nodes = 0+-+1\ncontroller\n"
                       "    cpus = 3\npublisher = pub\nhop\nproxy = p\n"
                       "hop\nsubscriber = sub\n";
    topology_t *topo = topology_load_text("t.cfg", text, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    CHECK(strcmp(topo->controller.cpus, "3") == 0 && topo->controller_line == 3);
    CHECK(topology_nodes(topo, nodes, &err) == 0);
    CHECK(nodes[0] == 0 && nodes[1] == -1 && nodes[2] == 1);
    CHECK(topology_set(topo, "controller.node=1", &err) == 0);
    CHECK(topo->controller.node == 1);
    topology_where(topo, LEVEL_CONTROLLER, 0, KEY_NODE, where, sizeof where);
    CHECK(strcmp(where, "--set controller.node=1: ") == 0);
    CHECK(topology_set(topo, "controller.count=2", &err) == -1);
    CHECK(strstr(err.msg, "'count' is a stage key, not a controller key"));
    topology_t *again = topology_reloaded(topo);
    CHECK(again);
    CHECK(again->controller.node == 1 && strcmp(again->controller.cpus, "3") == 0);
    CHECK(strcmp(again->params.nodes, "0+-+1") == 0);
    topology_destroy(&again);
    CHECK(topology_set(topo, "pub.node=1", &err) == 0);
    CHECK(topology_validate(topo, &err) == -1);
    CHECK(strstr(err.msg, "nodes puts stage 'pub' on node 0, but its own "
                          "node is 1"));
    topology_destroy(&topo);
    CHECK(topology_expect("topology = t\ncontroller = x\n", NULL,
                   "t.cfg:2: 'controller' takes no value") == 0);
    CHECK(topology_expect("topology = t\ncontroller\ncontroller\n", NULL,
                   "t.cfg:3: a second 'controller' (the first is at line "
                   "2)") == 0);
    CHECK(topology_expect("topology = t\npublisher = controller\n", NULL,
                   "name 'controller' would clash") == 0);
    const char *pair = "topology = t\npublisher = a\nhop\nsubscriber = b\n";
    CHECK(topology_expect(pair, "nodes=0", "nodes '0' has 1 entry for 2 stages") == 0);
    CHECK(topology_expect(pair, "nodes=0+x", "'x' is neither a node number") == 0);
    CHECK(topology_expect(pair, "nodes=0+", "'' is neither a node number") == 0);
    CHECK(topology_expect(pair, "nodes=01+1", "'01' is neither") == 0);
    return 0;
}

//  A 2-tier fan-in, written branch by branch, and its links numbered
//  sources first: west, east into their edges, the edges into the core
static const char *s_fanin = "topology = fanin\n"
                             "publisher = west\n"
                             "    count = 3\n"
                             "hop = ipc\n"
                             "proxy = edge-west\n"
                             "publisher = east\n"
                             "hop = ipc\n"
                             "proxy = edge-east\n"
                             "proxy = core\n"
                             "    from = edge-west\n"
                             "        transport = tcp\n"
                             "    from = edge-east\n"
                             "        transport = ipc\n"
                             "hop = tcp\n"
                             "subscriber = sub\n";

static int s_test_tree(void)
{
    errbuf_t err;
    params_t p;
    topology_t *topo = topology_load_text("t.cfg", s_fanin, &err);
    CHECK(topo && topology_validate(topo, &err) == 0);
    CHECK(topo->nstages == 6 && topo->nhops == 5);
    CHECK(topology_hop_up(topo, 0) == 0 && topology_hop_down(topo, 0) == 1);
    CHECK(topology_hop_up(topo, 1) == 2 && topology_hop_down(topo, 1) == 3);
    CHECK(topology_hop_up(topo, 2) == 1 && topology_hop_down(topo, 2) == 4);
    CHECK(topology_hop_up(topo, 3) == 3 && topology_hop_up(topo, 4) == 4);
    topology_hop_params(topo, 2, &p);
    CHECK(p.transport == TRANSPORT_TCP && p.hwm == 1000);
    topology_hop_params(topo, 3, &p);
    CHECK(p.transport == TRANSPORT_IPC && p.hwm == 1000);
    topology_hop_params(topo, 4, &p);
    CHECK(p.transport == TRANSPORT_TCP); //  the default
    CHECK(topology_set(topo, "edge-east:core.transport=inproc", &err) == 0);
    topology_hop_params(topo, 3, &p);
    CHECK(p.transport == TRANSPORT_INPROC);
    CHECK(topology_set(topo, "sub:core.hwm=7", &err) == -1);
    CHECK(strstr(err.msg, "no link 'sub:core'"));
    char where[300];
    topology_where(topo, LEVEL_HOP, 3, KEY_HWM, where, sizeof where);
    CHECK(strcmp(where, "t.cfg:12: ") == 0); //  not given: its from line
    topology_where(topo, LEVEL_HOP, 3, KEY_TRANSPORT, where, sizeof where);
    CHECK(strcmp(where, "--set edge-east:core.transport=inproc: ") == 0);
    topology_t *again = topology_reloaded(topo);
    CHECK(again && again->nhops == 5);
    for (int h = 0; h < 5; h++)
        CHECK(topology_hop_up(again, h) == topology_hop_up(topo, h) &&
              topology_hop_down(again, h) == topology_hop_down(topo, h));
    topology_hop_params(again, 3, &p);
    CHECK(p.transport == TRANSPORT_INPROC);
    topology_hop_params(again, 0, &p);
    CHECK(p.transport == TRANSPORT_IPC);
    topology_destroy(&again);
    topology_destroy(&topo);
    return 0;
}

//  A file (or --set) and the start of the error it must give
static const struct {
    const char *text, *set, *want;
} s_errors[] = {
    {"topology = t\npublisher = a\nhop = tpc\nsubscriber = b\n", NULL,
     "t.cfg:3: unknown transport 'tpc'"},
    {"topology = t\n    hwn = 5\npublisher = a\n", NULL,
     "t.cfg:2: unknown key 'hwn' (did you mean 'hwm'?)"},
    {"topology = t\n    sizes = 0..-5\n", NULL, "t.cfg:2: sizes '0..-5'"},
    {"topology = t\npublisher = a\nsubscriber = b\n", NULL,
     "t.cfg:3: no hop between 'a'"},
    {"topology = t\nsubscriber = a\nhop\npublisher = b\n", NULL,
     "t.cfg:2: stage 1 of a pubsub pipeline"},
    {"topology = t\npublisher = a\nhop\nproxy = p\n    count = 2\nhop\n"
     "subscriber = b\n",
     NULL, "t.cfg:5: count is for the first"},
    {"topology = t\npublisher = a\n    endpoint = x\n", NULL,
     "t.cfg:3: 'endpoint' is a hop key"},
    {"topology = t\npublisher = a\nhop = ipc\n    endpoint = "
     "tcp://127.0.0.1:1\nsubscriber = b\n",
     NULL, "t.cfg:4: hop 1 endpoint"},
    {"topology = t\npublisher = a\nhop\nsubscriber = a\n", NULL,
     "t.cfg:4: a second stage called 'a'"},
    {"topology = t\npublisher = a\nhop\nsubscriber = b\nhop\n", NULL,
     "t.cfg:5: a hop after the last stage"},
    {"topology = t\npublisher = a\nhop\nsubscriber = b\n", "transport=tpc",
     "--set transport=tpc: unknown transport 'tpc'"},
    {"publisher = a\n", NULL, "no 'topology = NAME'"},
    {"topology = a b\n", NULL, "t.cfg:1: value 'a b'"},
    {"bogus = 1\n", NULL, "t.cfg:1: unknown name 'bogus'"},
};

int topology_test(bool verbose)
{
    (void)verbose;
    CHECK(s_test_load() == 0);
    CHECK(s_test_where() == 0);
    CHECK(s_test_controller() == 0);
    CHECK(s_test_tree() == 0);
    CHECK(topology_validate_test() == 0);
    for (size_t i = 0; i < sizeof s_errors / sizeof s_errors[0]; i++)
        CHECK(topology_expect(s_errors[i].text, s_errors[i].set,
                              s_errors[i].want) == 0);
    return 0;
}

//  ------------------------------------------------------------------------
//  The checks (topology_validate.c and validate_*.c)

//  What a tree may not be
static int s_test_tree_errors(void)
{
    const char *head = "topology = t\npublisher = a\nhop\nproxy = b\n";
    char text[512];
    snprintf(text, sizeof text,
             "%sproxy = c\n    from = b,d\nproxy = d\n    from = c\n"
             "hop\nsubscriber = s\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:8: c -> d makes a cycle (d -> c -> "
                               "d)") == 0);
    snprintf(text, sizeof text,
             "%sproxy = c\n    from = a\nproxy = d\n    from = b,c\n"
             "hop\nsubscriber = s\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:8: c -> d makes a diamond: 'a' would "
                               "reach 's' through both 'c' and 'b'") == 0);
    snprintf(text, sizeof text, "%sproxy = c\n    from = x\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:6: from 'x': no stage called 'x'") == 0);
    snprintf(text, sizeof text, "%shop\nproxy = c\n    from = a\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:7: 'c' names its upstreams with from: "
                               "no 'hop' line before it (line 5") == 0);
    snprintf(text, sizeof text, "%spublisher = c\n    from = a\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:6: from: a publisher has no "
                               "upstream") == 0);
    snprintf(text, sizeof text, "%shop\nsubscriber = s\nproxy = c\n"
             "    from = s\nhop\nsubscriber = t\nsubscriber = u\n"
             "    from = b\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:8: subscriber 's' has a downstream "
                               "('c')") == 0);
    snprintf(text, sizeof text, "%shop\nsubscriber = s\nproxy = c\n"
             "    from = b\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:7: proxy 'c' feeds no stage") == 0);
    snprintf(text, sizeof text, "%spublisher = c\nhop\nsubscriber = s\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:4: proxy 'b' feeds no stage") == 0);
    snprintf(text, sizeof text, "%shop\nsubscriber = s\nsubscriber = t\n"
             "    from = b,b\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:8: from names 'b' twice") == 0);
    snprintf(text, sizeof text, "topology = t\n    pattern = pushpull\n"
             "pusher = a\nhop\nproxy = b\nhop\npuller = c\npuller = d\n"
             "    from = b\n");
    CHECK(topology_expect(text, NULL, "t.cfg:9: a pushpull pipeline is a chain") == 0);
    snprintf(text, sizeof text, "%sproxy = c\n    from = b\n        hwm = 5\n"
             "hop\nsubscriber = s\nsubscriber = t\n    from = b\n", head);
    CHECK(topology_expect(text, NULL, "t.cfg:11: hop 3 asks for hwm 1000, hop 2 for "
                               "5: the hops out of 'b' share its socket") == 0);
    return 0;
}

int topology_validate_test(void)
{
    CHECK(s_test_tree_errors() == 0);
    return 0;
}
