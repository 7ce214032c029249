"""Trim QuickFIX's FIX44.xml to the messages and fields the Bourse gateway uses (flattening components).

Usage: python3 trim.py FIX44.xml > FIX44-bourse.xml (FIX44.xml as in quickfixj-messages-all 3.0.0).
"""
import sys
import xml.etree.ElementTree as ET

src = ET.parse(sys.argv[1]).getroot()
fields = {f.get('name'): f for f in src.find('fields')}
tag_of = {name: int(f.get('number')) for name, f in fields.items()}
components = {c.get('name'): c for c in src.find('components')}

SESSION = {'0', '1', '2', '3', '4', '5', 'A'}
APP = {
    'D': {1, 11, 18, 21, 38, 40, 44, 54, 55, 58, 59, 60, 99, 110, 126, 432, 167, 386, 336, 625, 453, 448, 447, 452},
    'F': {1, 11, 37, 38, 41, 54, 55, 58, 60},
    'G': {1, 11, 18, 21, 37, 38, 40, 41, 44, 54, 55, 58, 59, 60, 99, 110, 126, 432},
    'H': {1, 11, 37, 54, 55, 790},
    'q': {11, 54, 55, 58, 60, 530},
    'r': {11, 37, 54, 55, 58, 60, 530, 531, 532, 533},
    '8': {1, 6, 11, 12, 13, 14, 17, 18, 31, 32, 37, 38, 39, 40, 41, 44, 54, 55, 58, 59, 60, 99, 103, 126, 150, 151, 378, 432,
          584, 790, 911, 912},
    '9': {1, 11, 37, 39, 41, 58, 60, 102, 434},
    'j': {45, 58, 372, 379, 380},
    'AF': {1, 54, 55, 584, 585},
    # Not traded on: kept whole so that the session layer checks their structure (a malformed one gets a session
    # Reject); a well-formed one is answered with a BusinessMessageReject (unsupported message type).
    'd': None,
    'C': None,
}

used = set()

def flatten(node, keep, required_parent, out):
    for child in node:
        req = required_parent and child.get('required') == 'Y'
        if child.tag == 'field':
            if keep is None or tag_of[child.get('name')] in keep:
                out.append(ET.Element('field', name=child.get('name'), required='Y' if req else 'N'))
                used.add(child.get('name'))
        elif child.tag == 'component':
            flatten(components[child.get('name')], keep, req, out)
        elif child.tag == 'group':
            if keep is None or tag_of[child.get('name')] in keep:
                group = ET.Element('group', name=child.get('name'), required='Y' if req else 'N')
                used.add(child.get('name'))
                members = []
                flatten(child, keep, True, members)
                group.extend(members)
                if members:
                    out.append(group)

root = ET.Element('fix', major='4', minor='4')
for section in ('header', 'trailer'):
    element = ET.SubElement(root, section)
    items = []
    flatten(src.find(section), None, True, items)
    element.extend(items)
messages = ET.SubElement(root, 'messages')
for message in src.find('messages'):
    msg_type = message.get('msgtype')
    if msg_type in SESSION or msg_type in APP:
        copy = ET.SubElement(messages, 'message', name=message.get('name'), msgtype=msg_type, msgcat=message.get('msgcat'))
        items = []
        flatten(message, None if msg_type in SESSION else APP[msg_type], True, items)
        copy.extend(items)
ET.SubElement(root, 'components')
field_section = ET.SubElement(root, 'fields')
for name, field in sorted(fields.items(), key=lambda item: int(item[1].get('number'))):
    if name in used:
        field_section.append(field)
ET.indent(root, '  ')
sys.stdout.write(ET.tostring(root, encoding='unicode') + '\n')
