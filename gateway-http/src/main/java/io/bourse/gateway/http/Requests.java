package io.bourse.gateway.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * Strict reading of JSON request bodies: an object, only the named fields, each of its declared type.
 */
final class Requests
{
    private Requests()
    {
    }

    static ObjectNode object(final byte[] body, final Set<String> allowed)
    {
        if (body.length == 0)
        {
            throw ApiException.badRequest("MALFORMED_JSON", "the request needs a JSON object body", null);
        }
        final JsonNode node;
        try
        {
            node = Views.MAPPER.readTree(body);
        }
        catch (final JsonProcessingException ex)
        {
            throw ApiException.badRequest("MALFORMED_JSON", "the body is not valid JSON: " +
                ex.getOriginalMessage(), null);
        }
        catch (final IOException ex)
        {
            throw ApiException.badRequest("MALFORMED_JSON", "the body could not be read", null);
        }
        if (node == null || !node.isObject())
        {
            throw ApiException.badRequest("MALFORMED_JSON", "the body must be a JSON object", null);
        }
        return object(node, allowed);
    }

    /**
     * @param node a JSON object (one of a batch's orders, say).
     * @return the object, once it is known to have only the named fields.
     */
    static ObjectNode object(final JsonNode node, final Set<String> allowed)
    {
        if (!node.isObject())
        {
            throw ApiException.badRequest("INVALID_TYPE", "expected a JSON object", null);
        }
        final Iterator<String> names = node.fieldNames();
        while (names.hasNext())
        {
            final String name = names.next();
            if (!allowed.contains(name))
            {
                throw ApiException.badRequest("UNKNOWN_FIELD", "unknown field '" + name + "' (allowed: " +
                    String.join(", ", allowed.stream().sorted().toList()) + ")", name);
            }
        }
        return (ObjectNode)node;
    }

    static String string(final ObjectNode node, final String field, final boolean required)
    {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull())
        {
            if (required)
            {
                throw ApiException.badRequest("MISSING_FIELD", field + " is required", field);
            }
            return null;
        }
        if (!value.isTextual())
        {
            throw ApiException.badRequest("INVALID_TYPE", field + ": expected a string", field);
        }
        return value.textValue();
    }

    static boolean bool(final ObjectNode node, final String field, final boolean defaultValue)
    {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull())
        {
            return defaultValue;
        }
        if (!value.isBoolean())
        {
            throw ApiException.badRequest("INVALID_TYPE", field + ": expected true or false", field);
        }
        return value.booleanValue();
    }

    static long integer(
        final ObjectNode node, final String field, final boolean required, final long defaultValue, final long min,
        final long max)
    {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull())
        {
            if (required)
            {
                throw ApiException.badRequest("MISSING_FIELD", field + " is required", field);
            }
            return defaultValue;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong())
        {
            throw ApiException.badRequest("INVALID_TYPE", field + ": expected an integer", field);
        }
        final long result = value.longValue();
        if (result < min || result > max)
        {
            throw ApiException.badRequest("OUT_OF_RANGE", field + ": expected " + min + " to " + max + ", got " + result,
                field);
        }
        return result;
    }

    static <E extends Enum<E>> E enumValue(
        final ObjectNode node, final String field, final Class<E> type, final E defaultValue, final Set<E> allowed)
    {
        final String text = string(node, field, defaultValue == null);
        if (text == null)
        {
            return defaultValue;
        }
        for (final E value : allowed)
        {
            if (value.name().equals(text))
            {
                return value;
            }
        }
        throw ApiException.badRequest("INVALID_ENUM", field + ": expected one of " +
            String.join(", ", allowed.stream().map(Enum::name).sorted().toList()) + ", got \"" + text + "\"", field);
    }
}
