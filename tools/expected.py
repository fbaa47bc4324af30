#!/usr/bin/env python3
"""expected.py: what each link of a run should have carried, from the rule.

    tools/expected.py RESULTS_DIR           CSV on stdout:
                                            size,repeat,hop,from,to,expected
    tools/expected.py --check RESULTS_DIR   the same held against
                                            results.csv; exit 1 on a mismatch

The topic rule of docs/TOPICS.md, written again from the page alone, in
Python 3 with the standard library only: it does not call hopbench and
shares no code with it, so when both agree the page says what the program
does.  It reads three files of a results directory:

    config.cfg      the effective topology: stages, hops, 'from', keys
    metadata.json   "published": what each publisher instance sent in
                    each trial (size, repeat), warm-up included
    results.csv     which rows (links) there are: hop, from, to, sent

A row whose downstream takes every topic its publishers send is not
filtered, and its expected is its sent (the page says so); every other
row's is computed.  The rule gives what the publishers sent of the
downstream's topics; expected is that less what the links above lost
(only an estimate when they lost some).  So this holds for runs that lose
nothing above a filtered link (mode = capacity): a row of another mode
is left out, with a note on stderr.  Sweeps are not handled (the swept
keys change the topology; config.cfg is the base one).
"""

import csv
import json
from itertools import accumulate
import math
import os
import sys

MASK = (1 << 64) - 1
ROUND = 1 << 18  # a table holds at least this many entries

# ------------------------------------------------------------------------
# The topology as saved: config.cfg (ZPL, four spaces a level)


def read_zpl(path):
    """[(name, value, [children])] of the top level, in file order."""
    root = []
    stack = [(-1, root)]
    with open(path) as f:
        for line in f:
            text = line.rstrip('\n')
            if not text.strip() or text.lstrip().startswith('#'):
                continue
            depth = (len(text) - len(text.lstrip(' '))) // 4
            name, _, value = text.strip().partition('=')
            value = value.strip()
            if value.startswith('"'):
                value = value[1:value.index('"', 1)]
            else:
                value = value.split('#', 1)[0].strip()
            while stack[-1][0] >= depth:
                stack.pop()
            node = (name.strip(), value, [])
            stack[-1][1].append(node)
            stack.append((depth, node[2]))
    return root


def keys_of(children):
    return {name: value for name, value, _ in children}


def read_topology(path):
    """The topology's keys, its stages in file order, and their edges."""
    top, stages, edges = {}, [], set()
    joined = False  # a 'hop' since the last stage: it joins the next one
    for name, value, children in read_zpl(path):
        if name == 'topology':
            top = keys_of(children)
        elif name in ('publisher', 'proxy', 'subscriber'):
            keys = keys_of(children)
            stages.append({'name': value, 'role': name, 'keys': keys})
            if joined:
                edges.add((stages[-2]['name'], value))
            for key, up, _ in children:
                if key == 'from':
                    edges.update((u.strip(), value) for u in up.split(','))
            joined = False
        elif name == 'hop':
            joined = True
    return top, stages, edges


# ------------------------------------------------------------------------
# Instances: names, origins (publishers), subscriber numbers, reach


def instances(stages):
    """Every stage instance in file order: name, stage, role, keys."""
    out = []
    for stage in stages:
        count = int(stage['keys'].get('count', '1'))
        for i in range(count):
            name = stage['name'] if count == 1 else '%s.%d' % (stage['name'], i + 1)
            out.append({'name': name, 'stage': stage['name'],
                        'role': stage['role'], 'keys': stage['keys']})
    origin = subscriber = 0
    for inst in out:
        if inst['role'] == 'publisher':
            inst['origin'], origin = origin, origin + 1
        if inst['role'] == 'subscriber':
            inst['q'], subscriber = subscriber, subscriber + 1
    return out


def reach(edges):
    """stage -> the stages downstream of it, itself included."""
    down = {}
    for up, to in edges:
        down.setdefault(up, set()).add(to)
    memo = {}

    def walk(stage):
        if stage not in memo:
            memo[stage] = {stage}
            for to in down.get(stage, ()):
                memo[stage] |= walk(to)
        return memo[stage]

    return walk


# ------------------------------------------------------------------------
# The random function and the tables


def mix(x):
    """splitmix64's finaliser of x + the golden gamma."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def unit(seed, i):
    """A number in [0, 1) from the seed and an index."""
    return (mix(seed ^ mix(i)) >> 11) * 2.0 ** -53


def period(n):
    return n * ((ROUND + n - 1) // n)


def phase(seed, origin, length):
    return mix((seed + 0x5851F42D4C957F2D * (origin + 1)) & MASK) % length


def counts(n, order, length):
    """Each topic's entries in the table: L / n, or zipf's by largest
    remainder (ties to the lower topic)."""
    if not order.startswith('zipf:'):
        return [length // n] * n
    s = float(order[5:])
    total = 0.0
    for t in range(n):
        total += (t + 1) ** -s
    exact = [length * (t + 1) ** -s / total for t in range(n)]
    count = [math.floor(e) for e in exact]
    rest = sorted(range(n), key=lambda t: (-(exact[t] - count[t]), t))
    for i in range(length - sum(count)):
        count[rest[i % n]] += 1
    return count


def table(n, order, seed):
    length = period(n)
    if order == 'roundrobin':
        return [i % n for i in range(length)]
    entries = []
    for t, c in enumerate(counts(n, order, length)):
        u = unit(seed, t)
        entries.extend(((k + u) / c, t) for k in range(c))
    entries.sort()
    return [t for _, t in entries]


# ------------------------------------------------------------------------
# Subscriptions


def subscribe_set(text, n, q):
    """The topics (of 0 .. n-1) subscriber number q takes; None: all."""
    if text == 'all':
        return None
    if ',' in text or '-' in text:
        topics = set()
        for item in text.split(','):
            a, _, b = item.partition('-')
            topics.update(range(int(a), int(b or a) + 1))
        return topics
    if text.endswith('%'):
        k = max(1, math.floor(n * float(text[:-1]) / 100 + 0.5))
    else:
        k = int(text)
    step = n // k
    return {(q + j * step) % n for j in range(k)}


def taken(prefix, length, start, sent):
    """Of the sequences 0 .. sent-1 from 'start' round the table, those
    whose topic the set takes (prefix[i]: taken entries before i)."""
    whole, rest = divmod(sent, length)
    end = start + rest
    part = (prefix[end] - prefix[start] if end <= length
            else prefix[length] - prefix[start] + prefix[end - length])
    return whole * prefix[length] + part


# ------------------------------------------------------------------------
# A run: the model, then each row's expected


class Run:
    def __init__(self, directory):
        top, stages, edges = read_topology(os.path.join(directory, 'config.cfg'))
        self.seed = int(top.get('seed', '1'))
        self.insts = instances(stages)
        self.by_name = {i['name']: i for i in self.insts}
        self.reach = reach(edges)
        pubs = [i for i in self.insts if i['role'] == 'publisher']
        self.n = max([1] + [int(p['keys'].get('topics', '1')) for p in pubs])
        self.tables, self.prefixes = {}, {}

    def reaches(self, a, b):
        """Does a's traffic reach b?  (Instances of one stage: only itself.)"""
        if a['stage'] == b['stage']:
            return a is b
        return b['stage'] in self.reach(a['stage'])

    def topics(self, inst):
        """What an instance takes: a subscriber its set, a proxy the union
        of the subscribers it reaches; None: every topic."""
        if inst['role'] == 'subscriber':
            return subscribe_set(inst['keys'].get('subscribe', 'all'), self.n,
                                 inst['q'])
        union = set()
        for sub in self.insts:
            if sub['role'] == 'subscriber' and self.reaches(inst, sub):
                one = self.topics(sub)
                if one is None:
                    return None
                union |= one
        return union

    def table_of(self, pub):
        stage = pub['stage']
        if stage not in self.tables:
            keys = pub['keys']
            self.tables[stage] = table(int(keys.get('topics', '1')),
                                       keys.get('topic_order', 'roundrobin'),
                                       self.seed)
        return self.tables[stage]

    def prefix(self, pub, inst):
        key = (pub['stage'], inst['name'])
        if key not in self.prefixes:
            wanted = self.topics(inst)
            takes = bytearray(self.n)  # 1 where inst takes topic t
            for t in range(self.n):
                takes[t] = wanted is None or t in wanted
            self.prefixes[key] = list(accumulate(
                map(takes.__getitem__, self.table_of(pub)), initial=0))
        return self.prefixes[key]

    def origins(self, inst):
        """The publisher instances whose messages reach inst."""
        return [p for p in self.insts
                if p['role'] == 'publisher' and self.reaches(p, inst)]

    def senders(self, text):
        """A row's 'from': an instance, or stages joined by '+' ('pub.*')."""
        if text in self.by_name:
            return [self.by_name[text]]
        names = {part[:-2] if part.endswith('.*') else part
                 for part in text.split('+')}
        return [i for i in self.insts if i['stage'] in names]

    def filters(self, inst):
        """Does inst take less than some publisher reaching it sends?"""
        for pub in self.origins(inst):
            prefix = self.prefix(pub, inst)
            if prefix[-1] != len(prefix) - 1:
                return True
        return False

    def expected(self, row, sent_by):
        to = self.by_name[row['to']]
        if not self.filters(to):
            return int(row['sent'])
        pubs = {p['name']: p for s in self.senders(row['from'])
                for p in self.origins(s)}
        total = 0
        for pub in pubs.values():
            prefix = self.prefix(pub, to)
            length = len(prefix) - 1
            total += taken(prefix, length, phase(self.seed, pub['origin'], length),
                           sent_by[pub['name']])
        return total * int(to['keys'].get('sockets', '1'))


def published(directory):
    with open(os.path.join(directory, 'metadata.json')) as f:
        meta = json.load(f)
    if meta.get('sweep'):
        sys.exit('expected.py: %s is a sweep (%s): not handled'
                 % (directory, meta['sweep']))
    if 'published' not in meta:
        sys.exit('expected.py: %s/metadata.json has no "published" counts '
                 '(a run of an older hopbench)' % directory)
    return {(str(e['size']), str(e['repeat'])): e['sent'] for e in meta['published']}


def rows(directory):
    with open(os.path.join(directory, 'results.csv')) as f:
        for row in csv.DictReader(f):
            if row['repeat'].isdigit():
                yield row


def main(argv):
    check = argv[1:2] == ['--check']
    if argv[1:2] in (['-h'], ['--help']):
        print(__doc__)
        return 0
    if len(argv) != 2 + check or argv[-1].startswith('-'):
        sys.exit('usage: expected.py [--check] RESULTS_DIR')
    directory = argv[-1]
    for name in ('config.cfg', 'metadata.json', 'results.csv'):
        if not os.path.isfile(os.path.join(directory, name)):
            sys.exit('expected.py: %s: no %s (not a results directory)'
                     % (directory, name))
    run, sent = Run(directory), published(directory)
    out = csv.writer(sys.stdout, lineterminator='\n')
    if not check:
        out.writerow(['size', 'repeat', 'hop', 'from', 'to', 'expected'])
    agree = differ = 0
    for row in rows(directory):
        if row.get('mode', 'capacity') != 'capacity':
            print('expected.py: size %s repeat %s hop %s: mode %s, left out'
                  % (row['size'], row['repeat'], row['hop'], row['mode']),
                  file=sys.stderr)
            continue
        want = run.expected(row, sent[(row['size'], row['repeat'])])
        if not check:
            out.writerow([row['size'], row['repeat'], row['hop'], row['from'],
                          row['to'], want])
        elif int(row['expected']) == want:
            agree += 1
        else:
            differ += 1
            print('size %s repeat %s hop %s %s -> %s: hopbench %s, the rule %d'
                  % (row['size'], row['repeat'], row['hop'], row['from'],
                     row['to'], row['expected'], want))
    if check:
        print('%d rows agree, %d differ' % (agree, differ))
    return 1 if differ else 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:  # a reader that stopped early (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
