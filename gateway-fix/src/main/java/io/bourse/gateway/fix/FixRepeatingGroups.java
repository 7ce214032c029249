package io.bourse.gateway.fix;

import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import uk.co.real_logic.artio.dictionary.DictionaryParser;
import uk.co.real_logic.artio.dictionary.ir.Aggregate;
import uk.co.real_logic.artio.dictionary.ir.Component;
import uk.co.real_logic.artio.dictionary.ir.Dictionary;
import uk.co.real_logic.artio.dictionary.ir.Entry;
import uk.co.real_logic.artio.dictionary.ir.Field;
import uk.co.real_logic.artio.dictionary.ir.Group;
import uk.co.real_logic.artio.dictionary.ir.Message;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks what Artio's generated decoders leave out about repeating groups: that every entry starts with the group's
 * delimiter (its first field in the dictionary) and that the fields of an entry come in the dictionary's order.
 * FIX requires both; a message that breaks either gets a session Reject, repeating group fields out of order (15),
 * naming the field found where it should not be, as QuickFIX/J answers it. The decoders check the NumInGroup counts
 * (16) themselves.
 * <p>
 * As in QuickFIX/J, a nested group's NumInGroup is not held to the order of its enclosing entry's fields, and an
 * entry ends at the first field that is not a member of its group. The layouts come from the dictionary the codecs
 * are generated from (in the codecs jar), read once at start; checking a message allocates nothing. One instance per
 * thread.
 */
final class FixRepeatingGroups
{
    static final String DICTIONARY_RESOURCE = "/io/bourse/gateway/fix/codecs/FIX44-bourse.xml";

    private static final int NOT_A_MEMBER = -1;
    private static final byte SOH = 1;

    private final Long2ObjectHashMap<Int2ObjectHashMap<GroupLayout>> groupsByMessageType = new Long2ObjectHashMap<>();
    private final Int2IntHashMap lengthTagByDataTag = new Int2IntHashMap(0);
    private final GroupLayout[] openGroups;
    private final boolean[] entryStarted;
    private final int[] previousMemberIndex;

    private int invalidTagId;
    private int groupWithoutDelimiterTag;
    private int delimiterTag;

    private FixRepeatingGroups(final Dictionary dictionary)
    {
        int maxDepth = 0;
        for (final Message message : dictionary.messages())
        {
            final Int2ObjectHashMap<GroupLayout> groups = new Int2ObjectHashMap<>();
            for (final Entry entry : members(message))
            {
                if (entry.element() instanceof final Group group)
                {
                    final GroupLayout layout = new GroupLayout(group);
                    groups.put(layout.countTag, layout);
                    maxDepth = Math.max(maxDepth, layout.depth);
                }
            }
            if (!groups.isEmpty())
            {
                groupsByMessageType.put(message.packedType(), groups);
            }
        }
        for (final Field field : dictionary.fields().values())
        {
            if (field.associatedLengthField() != null)
            {
                lengthTagByDataTag.put(field.number(), field.associatedLengthField().number());
            }
        }
        openGroups = new GroupLayout[maxDepth];
        entryStarted = new boolean[maxDepth];
        previousMemberIndex = new int[maxDepth];
    }

    /**
     * The layouts of the gateway's dictionary.
     */
    static FixRepeatingGroups load()
    {
        final InputStream in = FixRepeatingGroups.class.getResourceAsStream(DICTIONARY_RESOURCE);
        if (in == null)
        {
            throw new IllegalStateException(DICTIONARY_RESOURCE + " not on the class path");
        }
        try (in)
        {
            return new FixRepeatingGroups(new DictionaryParser(false).parse(in, null));
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("cannot read the FIX dictionary " + DICTIONARY_RESOURCE, ex);
        }
    }

    /**
     * Check the repeating groups of a message that its decoder has validated. A message that cannot be split into
     * fields passes: framing is not this check's business.
     *
     * @param messageType Artio's packed MsgType: one without groups in the dictionary passes at once.
     * @param buffer      holding the whole message.
     * @param offset      of the message.
     * @param length      of the message.
     * @return whether every entry starts with its delimiter and has its fields in order; if not,
     * {@link #invalidTagId()} and {@link #groupWithoutDelimiterTag()} say why.
     */
    boolean validate(final long messageType, final DirectBuffer buffer, final int offset, final int length)
    {
        invalidTagId = 0;
        groupWithoutDelimiterTag = 0;
        delimiterTag = 0;
        final Int2ObjectHashMap<GroupLayout> messageGroups = groupsByMessageType.get(messageType);
        if (messageGroups == null)
        {
            return true;
        }
        final int end = offset + length;
        int depth = 0;
        int position = offset;
        int previousTag = 0;
        int previousValue = -1;
        while (position < end)
        {
            int tag = 0;
            while (position < end && buffer.getByte(position) != '=')
            {
                final byte digit = buffer.getByte(position++);
                if (digit < '0' || digit > '9' || tag > 100_000_000)
                {
                    return true;
                }
                tag = tag * 10 + (digit - '0');
            }
            final int valueOffset = position + 1;
            int valueEnd;
            if (previousValue >= 0 && lengthTagByDataTag.get(tag) == previousTag && previousTag != 0)
            {
                // Data fields may hold SOH: their length is the value of the field before.
                valueEnd = valueOffset + previousValue;
            }
            else
            {
                valueEnd = valueOffset;
                while (valueEnd < end && buffer.getByte(valueEnd) != SOH)
                {
                    valueEnd++;
                }
            }
            if (valueEnd >= end)
            {
                return true;
            }
            previousTag = tag;
            previousValue = FixMessageFields.nonNegativeInt(buffer, valueOffset, valueEnd);
            position = valueEnd + 1;

            while (true)
            {
                if (depth == 0)
                {
                    final GroupLayout group = messageGroups.get(tag);
                    if (group != null)
                    {
                        depth = open(group, depth);
                    }
                    break;
                }
                final int level = depth - 1;
                final GroupLayout group = openGroups[level];
                final int index = group.memberIndexByTag.get(tag);
                if (index == NOT_A_MEMBER)
                {
                    // The group has ended: the field belongs to an enclosing level.
                    depth = level;
                    continue;
                }
                final GroupLayout nested = group.nestedByCountTag.get(tag);
                if (tag == group.delimiterTag)
                {
                    entryStarted[level] = true;
                    previousMemberIndex[level] = NOT_A_MEMBER;
                }
                else if (!entryStarted[level])
                {
                    invalidTagId = tag;
                    groupWithoutDelimiterTag = group.countTag;
                    delimiterTag = group.delimiterTag;
                    return false;
                }
                else if (nested == null)
                {
                    if (index <= previousMemberIndex[level])
                    {
                        invalidTagId = tag;
                        return false;
                    }
                    previousMemberIndex[level] = index;
                }
                if (nested != null)
                {
                    depth = open(nested, depth);
                }
                break;
            }
        }
        return true;
    }

    /**
     * @return the field found where it should not be, after {@link #validate} failed.
     */
    int invalidTagId()
    {
        return invalidTagId;
    }

    /**
     * @return the NumInGroup tag of the group whose entry did not start with its delimiter, or 0 when the failure
     * was fields out of order.
     */
    int groupWithoutDelimiterTag()
    {
        return groupWithoutDelimiterTag;
    }

    /**
     * @return the delimiter of that group, or 0.
     */
    int delimiterTag()
    {
        return delimiterTag;
    }

    private int open(final GroupLayout group, final int depth)
    {
        openGroups[depth] = group;
        entryStarted[depth] = false;
        previousMemberIndex[depth] = NOT_A_MEMBER;
        return depth + 1;
    }

    /**
     * The entries of an aggregate with its components flattened, in dictionary order.
     */
    private static List<Entry> members(final Aggregate aggregate)
    {
        final List<Entry> members = new ArrayList<>();
        for (final Entry entry : aggregate.entries())
        {
            if (entry.element() instanceof final Component component)
            {
                members.addAll(members(component));
            }
            else
            {
                members.add(entry);
            }
        }
        return members;
    }

    private static final class GroupLayout
    {
        final int countTag;
        final int delimiterTag;
        final int depth;
        final Int2IntHashMap memberIndexByTag = new Int2IntHashMap(NOT_A_MEMBER);
        final Int2ObjectHashMap<GroupLayout> nestedByCountTag = new Int2ObjectHashMap<>();

        GroupLayout(final Group group)
        {
            countTag = ((Field)group.numberField().element()).number();
            int index = 0;
            int firstTag = 0;
            int nestedDepth = 0;
            for (final Entry entry : members(group))
            {
                final int tag;
                if (entry.element() instanceof final Group nestedGroup)
                {
                    final GroupLayout nested = new GroupLayout(nestedGroup);
                    nestedByCountTag.put(nested.countTag, nested);
                    nestedDepth = Math.max(nestedDepth, nested.depth);
                    tag = nested.countTag;
                }
                else
                {
                    tag = ((Field)entry.element()).number();
                }
                if (index == 0)
                {
                    firstTag = tag;
                }
                memberIndexByTag.put(tag, index++);
            }
            delimiterTag = firstTag;
            depth = nestedDepth + 1;
        }
    }
}
